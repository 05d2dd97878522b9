"""Accounts: signing up (logging in and out are Django's own views, webui/urls.py)."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.shortcuts import redirect, render

from ..forms import SignUpForm


def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        # straight to the short path: install the SDK, write a bot, test it at home, upload it
        messages.info(request, f"Welcome, {user.username}: write a bot with the steps below, then upload it.")
        return redirect("learn")
    return render(request, "webui/signup.html", {"form": form})

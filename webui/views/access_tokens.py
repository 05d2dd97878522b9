"""A person's access tokens to the HTTP API (``/api/v1/``, docs/api.md): the list, a new one (shown
once: only its hash is kept, arena.models.AccessToken), and revoking one."""
from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from arena.models import AccessToken

from ..forms import AccessTokenForm


@login_required
def access_tokens(request):
    form = AccessTokenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        made, token = AccessToken.issue(request.user, form.cleaned_data["name"], form.cleaned_data["scopes"])
        response = render(request, "webui/access_token_created.html", {
            "made": made, "token": token, "site": request.build_absolute_uri("/").rstrip("/")})
        response["Cache-Control"] = "no-store"
        return response
    tokens = request.user.access_tokens.order_by("-created")
    return render(request, "webui/access_tokens.html", {"form": form, "tokens": tokens},
                  status=400 if request.method == "POST" else 200)


@login_required
@require_POST
def access_token_revoke(request, token_id: int):
    token = get_object_or_404(AccessToken, pk=token_id, owner=request.user)
    if token.revoked is None:
        token.revoked = timezone.now()
        token.save(update_fields=["revoked"])
    messages.info(request, f"The token {token} is revoked: it is refused from now on.")
    return redirect("access_tokens")

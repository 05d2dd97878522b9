"""The operator's page: the platform's health (arena.fleet.status), for staff only."""
from __future__ import annotations

from django.contrib.admin.views.decorators import staff_member_required
from django.shortcuts import render

from arena.fleet.status import platform_status


@staff_member_required
def operator_page(request):
    return render(request, "webui/operator.html", {"status": platform_status()})

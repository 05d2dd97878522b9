"""The website's pages (included by the site's root URLs, ``parlour_site.urls``)."""
from django.contrib.auth import views as auth_views
from django.urls import path

from . import author, learn, operator, replays, views

urlpatterns = [
    path("", views.home, name="home"),
    path("ladder/<str:game>/", views.ladder, name="ladder"),
    path("ladder/<str:game>/solo/", views.solo_scores, name="solo"),
    path("bots/", views.my_bots, name="my_bots"),
    path("bots/upload/", views.upload, name="upload"),
    path("bots/remote/new/", views.remote_new, name="remote_new"),
    path("bots/<int:bot_id>/", views.bot_page, name="bot"),
    path("bots/<int:bot_id>/active/", views.bot_active, name="bot_active"),
    path("bots/<int:bot_id>/compare/", views.comparison_start, name="comparison_start"),
    path("comparisons/<int:comparison_id>/", views.comparison_page, name="comparison"),
    path("bots/<int:bot_id>/versions/<int:number>/report/", views.version_report, name="version_report"),
    path("bots/<int:bot_id>/challenge/", author.challenge, name="challenge"),
    path("bots/<int:bot_id>/delete/", author.bot_delete, name="bot_delete"),
    path("bots/<int:bot_id>/versions/<int:number>/code.zip", author.version_download, name="version_download"),
    path("bots/<int:bot_id>/tokens/new/", views.token_create, name="token_create"),
    path("bots/<int:bot_id>/tokens/<int:token_id>/revoke/", views.token_revoke, name="token_revoke"),
    path("operator/", operator.operator_page, name="operator"),
    path("learn/", learn.learn, name="learn"),
    path("learn/guides/<slug:name>/", learn.learn_guide, name="learn_guide"),
    path("learn/<str:game>/", learn.learn_game, name="learn_game"),
    path("tournaments/", views.tournament_list, name="tournaments"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="tournament"),
    path("matches/<int:match_id>/", views.match_page, name="match"),
    path("matches/<int:match_id>/replay.json", replays.replay_json, name="replay_json"),
    path("matches/<int:match_id>/live.json", replays.live_json, name="live_json"),
    path("matches/<int:match_id>/replay.json.gz", replays.replay_download, name="replay_download"),
    path("accounts/signup/", views.signup, name="signup"),
    path("accounts/login/", auth_views.LoginView.as_view(template_name="webui/login.html"), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
]

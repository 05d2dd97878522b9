"""The website's pages (included by the site's root URLs, ``parlour_site.urls``), by family (webui/views/)."""
from django.contrib.auth import views as auth_views
from django.urls import path

from .api import api
from .views import (access_tokens, accounts, bots, challenges, comparisons, exports, home, ladders, learn, matches,
                    operator, tournaments, uploads, webhooks)

urlpatterns = [
    path("api/v1/", api.urls),
    path("", home.home, name="home"),
    path("ladder/<str:game>/", ladders.ladder, name="ladder"),
    path("ladder/<str:game>/solo/", ladders.solo_scores, name="solo"),
    path("bots/", bots.my_bots, name="my_bots"),
    path("bots/upload/", uploads.upload, name="upload"),
    path("bots/remote/new/", uploads.remote_new, name="remote_new"),
    path("bots/<int:bot_id>/", bots.bot_page, name="bot"),
    path("bots/<int:bot_id>/matches.csv", exports.matches_csv, name="bot_matches_csv"),
    path("bots/<int:bot_id>/matches.json", exports.matches_json, name="bot_matches_json"),
    path("bots/<int:bot_id>/active/", bots.bot_active, name="bot_active"),
    path("bots/<int:bot_id>/notes-public/", bots.bot_notes_public, name="bot_notes_public"),
    path("bots/<int:bot_id>/compare/", comparisons.comparison_start, name="comparison_start"),
    path("comparisons/<int:comparison_id>/", comparisons.comparison_page, name="comparison"),
    path("comparisons/<int:comparison_id>/cancel/", comparisons.comparison_cancel, name="comparison_cancel"),
    path("bots/<int:bot_id>/versions/<int:number>/report/", bots.version_report, name="version_report"),
    path("bots/<int:bot_id>/challenge/", challenges.challenge, name="challenge"),
    path("bots/<int:bot_id>/delete/", bots.bot_delete, name="bot_delete"),
    path("bots/<int:bot_id>/versions/<int:number>/code.zip", bots.version_download, name="version_download"),
    path("bots/<int:bot_id>/tokens/new/", bots.token_create, name="token_create"),
    path("bots/<int:bot_id>/tokens/<int:token_id>/revoke/", bots.token_revoke, name="token_revoke"),
    path("bots/<int:bot_id>/webhooks/new/", webhooks.webhook_create, name="webhook_create"),
    path("bots/<int:bot_id>/webhooks/<int:webhook_id>/delete/", webhooks.webhook_delete, name="webhook_delete"),
    path("operator/", operator.operator_page, name="operator"),
    path("learn/", learn.learn, name="learn"),
    path("learn/guides/<slug:name>/", learn.learn_guide, name="learn_guide"),
    path("learn/<str:game>/", learn.learn_game, name="learn_game"),
    path("tournaments/", tournaments.tournament_list, name="tournaments"),
    path("tournaments/new/", tournaments.tournament_new, name="tournament_new"),
    path("tournaments/<int:tournament_id>/", tournaments.tournament_page, name="tournament"),
    path("matches/<int:match_id>/", matches.match_page, name="match"),
    path("matches/<int:match_id>/replay.json", matches.replay_json, name="replay_json"),
    path("matches/<int:match_id>/live.json", matches.live_json, name="live_json"),
    path("matches/<int:match_id>/replay.json.gz", matches.replay_download, name="replay_download"),
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/tokens/", access_tokens.access_tokens, name="access_tokens"),
    path("accounts/tokens/<int:token_id>/revoke/", access_tokens.access_token_revoke, name="access_token_revoke"),
    path("accounts/login/", auth_views.LoginView.as_view(template_name="webui/login.html"), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
]

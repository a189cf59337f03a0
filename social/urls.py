"""URLs of friends and blocks and of 战绩 (``/history/``), mounted at the site
root (``/friends/``, ``/api/…``)."""

from django.urls import path, re_path

from social import history_views, views

urlpatterns = [
    path("friends/", views.friends_page, name="friends"),
    path("api/friends", views.api_friends, name="api_friends"),
    re_path(r"^api/friends/(?P<username>[^/]+)/(?P<action>request|accept|decline|cancel|remove)$",
            views.friend_action, name="api_friend_action"),
    path("api/blocks", views.api_blocks, name="api_blocks"),
    path("api/blocks/<str:username>", views.block, name="api_block"),
    path("api/blocks/<str:username>/remove", views.unblock, name="api_unblock"),
    path("api/users", views.api_search, name="api_search"),
    path("api/users/<str:username>", views.api_user, name="api_user"),
    path("history/", history_views.my_history, name="history"),
    path("u/<str:username>/history/", history_views.user_history, name="user_history"),
    path("api/me/games", history_views.api_my_games, name="api_my_games"),
    path("api/users/<str:username>/games", history_views.api_user_games, name="api_user_games"),
    path("api/tables/<int:table_id>/invite", views.invite_to_table, name="api_invite"),
    path("api/invites/<int:invite_id>/accept", views.answer_invite, {"action": "accept"},
         name="api_invite_accept"),
    path("api/invites/<int:invite_id>/decline", views.answer_invite, {"action": "decline"},
         name="api_invite_decline"),
    path("invites/<int:invite_id>/", views.invite_page, name="invite"),
    path("api/social/settings", views.social_settings, name="api_social_settings"),
]

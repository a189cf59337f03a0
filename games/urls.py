"""URLs of the games app, mounted at the site root."""

from django.urls import path

from games import review_views, tutorial_views, views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("rules/", views.rules, name="rules"),
    path("tables/new/", views.create_table, name="table_new"),
    path("tables/quick/", views.quick_start, name="quick_start"),
    path("tables/practice/", views.practice, name="practice"),
    path("tables/join/", views.join_by_code, name="join_by_code"),
    path("tables/<int:table_id>/", views.table, name="table"),
    path("games/<int:game_id>/", views.game_result, name="game_result"),
    path("games/<int:game_id>/review/", review_views.review_page, name="game_review"),
    path("api/games/<int:game_id>/review", review_views.review_api, name="game_review_api"),
    path("reviews/<slug:kind>/<int:ref>/", review_views.record_review_page, name="review"),
    path("api/reviews/<slug:kind>/<int:ref>", review_views.record_review_api, name="review_api"),
    path("fairness/", views.fairness_doc, name="fairness_doc"),
    path("tutorial/", tutorial_views.index, name="tutorial"),
    path("tutorial/<int:n>/", tutorial_views.page, name="tutorial_lesson"),
    path("api/tutorial/sync", tutorial_views.api_sync, name="tutorial_sync"),
    path("api/tutorial/<int:n>", tutorial_views.api_step, name="tutorial_step"),
    path("api/tutorial/<int:n>/play", tutorial_views.api_play, name="tutorial_play"),
    path("api/tutorial/<int:n>/complete", tutorial_views.api_complete, name="tutorial_complete"),
]

"""URLs of the accounts app, mounted at ``/accounts/`` beside allauth's."""

from django.urls import path

from accounts import views

urlpatterns = [
    path("profile/", views.profile, name="profile_self"),
    path("avatar/", views.choose_avatar, name="choose_avatar"),
    path("profile/<str:username>/", views.profile, name="profile"),
    path("data/", views.my_data, name="my_data"),
    path("delete/", views.delete_self, name="delete_account"),
]

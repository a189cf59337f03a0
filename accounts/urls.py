"""URLs of the accounts app, mounted at ``/accounts/`` beside allauth's."""

from django.urls import path

from accounts import views

urlpatterns = [
    path("profile/", views.profile, name="profile_self"),
    path("profile/<str:username>/", views.profile, name="profile"),
]

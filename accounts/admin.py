from django.contrib import admin

from accounts.models import Profile


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "rating_points", "level", "coins", "games_played", "games_won")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
    ordering = ("-rating_points",)

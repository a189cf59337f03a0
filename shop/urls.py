"""URLs of the shop, mounted at the site root (``/shop/…``, ``/api/…``, ``/replays/…``)."""

from django.urls import path

from shop import views

urlpatterns = [
    path("shop/", views.shop_page, name="shop"),
    path("shop/buy/", views.buy, name="shop_buy"),
    path("shop/checkin/", views.check_in, name="shop_checkin"),
    path("shop/relief/", views.relief, name="shop_relief"),
    path("shop/use/", views.use, name="shop_use"),
    path("shop/swap/", views.swap, name="shop_swap"),
    path("shop/disarm/", views.disarm, name="shop_disarm"),
    path("api/shop", views.api_shop, name="api_shop"),
    path("api/me", views.api_me, name="api_me"),
    path("replays/", views.replay_list, name="replays"),
    path("replays/<str:token>/", views.replay_page, name="replay"),
    path("replays/<str:token>/record.json", views.replay_record, name="replay_record"),
]

"""The catalogue's starting items (codes and "价格不菲" prices; RULES.md §9).
Prices are then edited in the admin; running this again changes nothing."""

from django.db import migrations

ITEMS = [
    # code, zh, en, price, stackable, for_sale, description zh, description en
    ("sign", "招牌", "Sign", 1000, True, True,
     "在你坐下或拥有的桌子上使用：给桌子改名，名字受保护 1 小时。",
     "Use at a table you own or sit at: rename it; the name is protected for 1 hour."),
    ("gold_sign", "金字招牌", "Gold sign", 8000, True, True,
     "在你坐下或拥有的桌子上使用：给桌子改名，名字受保护 24 小时。",
     "Use at a table you own or sit at: rename it; the name is protected for 24 hours."),
    ("timer", "定时器", "Timer", 600, True, True,
     "在背包里启用。计分局中你第一次超时时多给 90 秒；你付 270 金币，其他每位玩家得 90。",
     "Arm it in the inventory. The first time your turn would time out in a rated game you "
     "get 90 more seconds; you pay 270 coins and each other player receives 90."),
    ("card_counter", "算牌器", "Card counter", 400, True, True,
     "对局中使用：本半局余下的时间里显示其他三家合计还有哪些牌。",
     "Use while you play: for the rest of the half it shows the cards the other three "
     "still hold between them."),
    ("tablecloth", "桌布", "Tablecloth", 1500, True, True,
     "桌主使用：为这张桌子选一种桌布主题，大家都看得到。",
     "The table's owner uses it to pick a theme for the table that everyone sees."),
    ("recorder", "录像机", "Recorder", 300, True, True,
     "在结束的对局上使用：把这局存进你的录像库，可回放、下载和分享。",
     "Use on a finished game: save it to your replay library to step through, download "
     "and share."),
    ("gem_shard", "钻石碎片", "Diamond shard", 0, False, False,
     "使用：积分 +1（积分低于钻石上限时）。", "Use: +1 rating point (while under the gem cap)."),
    ("gem_standard", "标准钻石", "Standard diamond", 0, False, False,
     "使用：积分 +10（积分低于钻石上限时）。", "Use: +10 rating points (while under the gem cap)."),
    ("gem_perfect", "完美钻石", "Perfect diamond", 0, False, False,
     "使用：积分 +100（积分低于钻石上限时）。",
     "Use: +100 rating points (while under the gem cap)."),
]


def add_items(apps, schema_editor):
    Item = apps.get_model("shop", "Item")
    for position, (code, zh, en, price, stackable, for_sale, dzh, den) in enumerate(ITEMS):
        Item.objects.get_or_create(code=code, defaults=dict(
            name_zh=zh, name_en=en, price=price, stackable=stackable, for_sale=for_sale,
            description_zh=dzh, description_en=den, position=position))


def remove_items(apps, schema_editor):
    apps.get_model("shop", "Item").objects.filter(code__in=[i[0] for i in ITEMS]).delete()


class Migration(migrations.Migration):
    dependencies = [("shop", "0003_catalogue_inventory_items")]
    operations = [migrations.RunPython(add_items, remove_items)]

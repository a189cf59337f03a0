"""The 定时器's description says when its 270 coins are paid (a tester read it
as a second price on top of the 600): only when it fires, on top of the
purchase (RULES.md §12). An edited description (the admin) is left alone."""

from django.db import migrations

OLD = (
    "在背包里启用。计分局中你第一次超时时多给 90 秒；你付 270 金币，其他每位玩家得 90。",
    "Arm it in the inventory. The first time your turn would time out in a rated game you "
    "get 90 more seconds; you pay 270 coins and each other player receives 90.",
)
NEW = (
    "在背包里启用。计分局中你第一次要超时时，多给你 90 秒；这时（只在生效时）你另付 270 金币，"
    "同桌其他每位真人玩家得 90。练习局或金币不够时不生效，继续保持启用。",
    "Arm it in the inventory. The first time your turn would time out in a rated game you "
    "get 90 more seconds; only then do you pay a further 270 coins, 90 to each other human "
    "player at the table. In practice games, or with too few coins, it does not fire and "
    "stays armed.",
)


def _swap(apps, old, new):
    Item = apps.get_model("shop", "Item")
    Item.objects.filter(code="timer", description_zh=old[0]).update(description_zh=new[0])
    Item.objects.filter(code="timer", description_en=old[1]).update(description_en=new[1])


class Migration(migrations.Migration):
    dependencies = [("shop", "0008_contest_reasons")]
    operations = [migrations.RunPython(lambda apps, _se: _swap(apps, OLD, NEW),
                                       lambda apps, _se: _swap(apps, NEW, OLD))]

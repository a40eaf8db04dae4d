"""A small real codebase for retrieval tests: billing code with a refund rule, a class whose
methods call each other, and one function long enough to be split into pieces."""

from __future__ import annotations

BILLING = '''"""Billing rules."""

from shop.money import round_cents


def is_eligible_for_refund(order, today):
    """A refund is allowed within thirty days of delivery for unopened items."""
    if order.opened:
        return False
    return (today - order.delivered_on).days <= 30


class InvoiceBuilder:
    """Collects order lines and renders an invoice."""

    def __init__(self, customer):
        self.customer = customer
        self.lines = []

    def add_line(self, sku, amount):
        self.lines.append((sku, round_cents(amount)))
        return self

    def total(self):
        return round_cents(sum(amount for _sku, amount in self.lines))

    def render(self):
        header = f"Invoice for {self.customer}"
        return header + "\\n" + str(self.total())
'''

MONEY = '''"""Money helpers."""


def round_cents(amount):
    """Round an amount of money to whole cents."""
    return round(amount * 100) / 100


def convert_currency(amount, rate):
    return round_cents(amount * rate)
'''


def long_function() -> str:
    """Python source of a function far larger than one embedding window."""
    branches = []
    for i in range(14):
        branches.append(
            f"    if kind == 'shipping_zone_{i}':\n"
            f"        total = weight * {i + 1}.25 + distance * 0.{i + 1}\n"
            f"        if total > limit_{i}:\n"
            f"            total = limit_{i} - discount_for_zone_{i}(weight, distance)\n"
            f"        notes.append('computed shipping zone {i} from weight and distance')\n"
        )
    return (
        '"""Shipping costs."""\n\n\n'
        "def shipping_cost(kind, weight, distance, notes):\n"
        '    """Shipping cost for a parcel, by zone."""\n'
        "    total = 0\n" + "".join(branches) + "    return total\n"
    )

"""A tiny stock-keeping model for a corner shop.

Items are added with a quantity and a unit price; sales reduce the stock and
are logged so that a daily report can be printed at closing time.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


class OutOfStock(Exception):
	"""Raised when a sale asks for more units than the shelf holds."""


@dataclass
class Item:
	sku: str
	name: str
	unit_price: Decimal
	quantity: int = 0

	def value(self) -> Decimal:
		return self.unit_price * self.quantity


@dataclass
class Inventory:
	items: dict[str, Item] = field(default_factory=dict)
	sales: list[tuple[str, int, Decimal]] = field(default_factory=list)

	def add(self, sku: str, name: str, unit_price: str, quantity: int) -> Item:
		if quantity < 0:
			raise ValueError(f"quantity must be >= 0, got {quantity}")
		item = self.items.get(sku)
		if item is None:
			item = Item(sku, name, Decimal(unit_price), quantity)
			self.items[sku] = item
		else:
			item.quantity += quantity
		return item

	def sell(self, sku: str, quantity: int = 1) -> Decimal:
		try:
			item = self.items[sku]
		except KeyError:
			raise KeyError(f"unknown SKU {sku!r}; known: {sorted(self.items)}") from None
		if quantity > item.quantity:
			raise OutOfStock(f"{item.name}: wanted {quantity}, have {item.quantity}")
		item.quantity -= quantity
		total = item.unit_price * quantity
		self.sales.append((sku, quantity, total))
		return total

	def low_stock(self, threshold: int = 3) -> list[Item]:
		return [item for item in self.items.values() if item.quantity <= threshold]

	def report(self) -> str:
		lines = ["SKU      NAME                 QTY      VALUE"]
		for item in sorted(self.items.values(), key=lambda i: i.sku):
			lines.append(
				f"{item.sku:<8} {item.name:<20} {item.quantity:>3} {item.value():>10.2f}"
			)
		takings = sum((total for _, _, total in self.sales), Decimal("0"))
		lines.append(f"Sales today: {len(self.sales)}, takings: {takings:.2f}")
		for item in self.low_stock():
			lines.append(f"Reorder soon: {item.name} ({item.quantity} left)")
		return "\n".join(lines)


def main() -> None:
	shop = Inventory()
	shop.add("A100", "Oat milk 1L", "1.85", 12)
	shop.add("A200", "Sourdough loaf", "3.40", 4)
	shop.add("B310", "Free-range eggs x6", "2.95", 8)
	shop.sell("A200", 2)
	shop.sell("B310", 6)
	try:
		shop.sell("A200", 5)
	except OutOfStock as exc:
		print(f"Could not complete sale: {exc}")
	print(shop.report())


if __name__ == "__main__":
	main()

// A typed publish/subscribe bus: each event name maps to one payload type,
// so the compiler rejects a handler that expects the wrong shape.

export interface Events {
  "user:login": { userId: string; at: Date };
  "user:logout": { userId: string; reason?: "timeout" | "manual" };
  "cart:update": { items: ReadonlyArray<{ sku: string; qty: number }> };
}

type Handler<T> = (payload: T) => void | Promise<void>;

export class EventBus<E extends Record<string, unknown>> {
  private readonly handlers = new Map<keyof E, Set<Handler<never>>>();

  on<K extends keyof E>(event: K, handler: Handler<E[K]>): () => void {
    let set = this.handlers.get(event);
    if (!set) {
      set = new Set();
      this.handlers.set(event, set);
    }
    set.add(handler as Handler<never>);
    return () => this.off(event, handler);
  }

  off<K extends keyof E>(event: K, handler: Handler<E[K]>): void {
    this.handlers.get(event)?.delete(handler as Handler<never>);
  }

  async emit<K extends keyof E>(event: K, payload: E[K]): Promise<number> {
    const set = this.handlers.get(event);
    if (!set || set.size === 0) {
      return 0;
    }
    const calls = [...set].map((h) => (h as Handler<E[K]>)(payload));
    const outcomes = await Promise.allSettled(calls);
    const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === "rejected");
    if (failed.length > 0) {
      throw new AggregateError(
        failed.map((f) => f.reason),
        `${failed.length} handler(s) failed for ${String(event)}`,
      );
    }
    return set.size;
  }
}

export function totalQuantity(items: Events["cart:update"]["items"]): number {
  return items.reduce((sum, item) => sum + item.qty, 0);
}

const bus = new EventBus<Events>();
const stop = bus.on("cart:update", ({ items }) => {
  console.log(`cart now holds ${totalQuantity(items)} item(s)`);
});
bus.on("user:logout", ({ userId, reason = "manual" }) => {
  console.log(`${userId} logged out (${reason})`);
});

void bus.emit("cart:update", { items: [{ sku: "TEA-01", qty: 2 }, { sku: "MUG-07", qty: 1 }] });
void bus.emit("user:logout", { userId: "u-42", reason: "timeout" });
stop();

/**
 * The engine's queue of searches, taken in turn by player (DECISIONS §16a): round-robin between players. Each
 * player's searches wait in their own line, first come first served; the players with a search waiting stand in a
 * ring, a player coming (or coming back) joins its end, and the player just served goes to its end when the next
 * search is taken. So a player with 30 games waiting delays another player's one search by at most the search
 * running when it came: one player's many games cannot delay another's, and every player waiting is served once
 * before anyone is served twice. Only the players waiting (and the one last served) are kept.
 *
 * ```ts
 * const queue = new FairQueue<string>();
 * queue.push('ann', 'a1'); queue.push('ann', 'a2');
 * queue.shift(); // 'a1'
 * queue.push('bob', 'b1');
 * queue.shift(); // 'b1': Ann was served last
 * queue.order(); // ['a2']: what would be taken, in turn, if nothing else came
 * ```
 */

interface Line<T> {
  readonly player: string;
  readonly items: T[];
  place: number; // the player's place in the ring: lower is sooner
}

export class FairQueue<T> {
  private readonly lines = new Map<string, Line<T>>();
  private places = 0; // the last place given
  private served: Line<T> | undefined; // the player served last, who goes to the end of the ring next
  private size = 0;

  get length(): number {
    return this.size;
  }

  push(player: string, item: T): void {
    let line = this.lines.get(player);
    if (!line) {
      line = { player, items: [], place: ++this.places };
      this.lines.set(player, line);
    }
    line.items.push(item);
    this.size++;
  }

  /** Takes the next item: the first of the player foremost in the ring, after the one served last has moved back. */
  shift(): T | undefined {
    this.rotate();
    let next: Line<T> | undefined;
    for (const line of this.lines.values()) if (!next || line.place < next.place) next = line;
    if (!next) return undefined;
    this.served = next;
    this.size--;
    return next.items.shift();
  }

  /** Removes a waiting item (an aborted search); false when it was not waiting. */
  remove(item: T): boolean {
    for (const line of this.lines.values()) {
      const at = line.items.indexOf(item);
      if (at < 0) continue;
      line.items.splice(at, 1);
      this.size--;
      if (line.items.length === 0 && line !== this.served) this.lines.delete(line.player);
      return true;
    }
    return false;
  }

  /** Removes and answers every waiting item, in the order they would have been taken. */
  clear(): T[] {
    const all = this.order();
    this.lines.clear();
    this.served = undefined;
    this.size = 0;
    return all;
  }

  /** The waiting items in the order they would be taken if no other came: each player's first, then second, ... */
  order(): T[] {
    const ring = [...this.lines.values()]
      .filter(line => line !== this.served && line.items.length > 0)
      .sort((a, b) => a.place - b.place);
    if (this.served && this.served.items.length > 0) ring.push(this.served);
    const order: T[] = [];
    for (let round = 0; order.length < this.size; round++) {
      for (const line of ring) if (round < line.items.length) order.push(line.items[round]!);
    }
    return order;
  }

  /** The player served last goes to the end of the ring, or leaves it with nothing waiting. */
  private rotate(): void {
    const served = this.served;
    if (!served) return;
    this.served = undefined;
    if (served.items.length > 0) served.place = ++this.places;
    else this.lines.delete(served.player);
  }
}

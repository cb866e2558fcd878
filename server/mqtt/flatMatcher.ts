/**
 * The topic matcher of the broker's publish/subscribe (aedes' mqemitter), held flat: one Map entry per subscribed
 * filter instead of mqemitter's Qlobber trie, which keeps one Map per topic level below the first word a filter does
 * not share. A device's own filters (`/sys/{productKey}/{deviceName}/thing/...`, 17 of them as Alibaba's SDK and OTA
 * subscribe) share only the first levels, so the trie held 32 Maps per connected device (~6 KB); here they are 17
 * entries of two Maps shared by all devices.
 *
 * - A filter without wildcards is a key of `exact` (its topic string, which aedes' client keeps anyway).
 * - A filter with `+` or `#` is kept under its literal prefix, the levels before its first wildcard (`byPrefix`,
 *   keyed by that many levels, then the prefix text); a topic looks up each of its own prefixes and tests the rest.
 *
 * Matching is MQTT's as mqemitter configures Qlobber (match_empty_levels): `+` takes exactly one level, an empty one
 * too; `#` takes zero or more levels. The methods are the part of Qlobber's interface mqemitter calls.
 */

type Value = unknown;

/** Qlobber's interface as mqemitter calls it (what FlatMatcher answers alike). */
export interface TopicMatcher {
    add(filter: string, value: Value): unknown;
    remove(filter: string, value?: Value): unknown;
    match(topic: string): Value[];
}

interface WildEntry {
    /** The filter's levels from its first wildcard on. */
    rest: string[];
    value: Value;
}

export class FlatMatcher implements TopicMatcher {
    readonly exact = new Map<string, Value[]>();
    /** Filters with wildcards: by the number of literal levels before the first wildcard, then by those levels. */
    readonly byPrefix = new Map<number, Map<string, WildEntry[]>>();

    add(filter: string, value: Value): void {
        const words = filter.split('/');
        const first = words.findIndex((w) => w === '+' || w === '#');
        if (first < 0) {
            const values = this.exact.get(filter);
            if (values) values.push(value);
            else this.exact.set(filter, [value]);
            return;
        }
        let level = this.byPrefix.get(first);
        if (!level) this.byPrefix.set(first, (level = new Map()));
        const prefix = words.slice(0, first).join('/');
        const entries = level.get(prefix);
        const entry = { rest: words.slice(first), value };
        if (entries) entries.push(entry);
        else level.set(prefix, [entry]);
    }

    /**
     * Removes `value` under `filter` once (its last addition, as Qlobber does), or every value under it when none is
     * given; true when something was removed.
     */
    remove(filter: string, value?: Value): boolean {
        const words = filter.split('/');
        const first = words.findIndex((w) => w === '+' || w === '#');
        if (first < 0)
            return removeFrom(this.exact, filter, (v) => value === undefined || v === value, value === undefined);
        const level = this.byPrefix.get(first);
        if (!level) return false;
        const rest = words.slice(first).join('/');
        const removed = removeFrom(
            level,
            words.slice(0, first).join('/'),
            (e) => (value === undefined || e.value === value) && e.rest.join('/') === rest,
            value === undefined,
        );
        if (!level.size) this.byPrefix.delete(first);
        return removed;
    }

    /** The values of every filter matching `topic`. */
    match(topic: string): Value[] {
        const found: Value[] = [];
        const exact = this.exact.get(topic);
        if (exact) for (const v of exact) found.push(v);
        if (!this.byPrefix.size) return found;
        const words = topic.split('/');
        for (const [count, level] of this.byPrefix) {
            if (count > words.length) continue;
            const entries = level.get(words.slice(0, count).join('/'));
            if (!entries) continue;
            for (const e of entries) if (matchRest(e.rest, words, count)) found.push(e.value);
        }
        return found;
    }
}

/** Removes the last item of `key` that `which` picks (every one when `all`); the key goes with its last item. */
function removeFrom<T>(map: Map<string, T[]>, key: string, which: (item: T) => boolean, all = false): boolean {
    const items = map.get(key);
    if (!items) return false;
    let removed = false;
    for (let i = items.length - 1; i >= 0; i--) {
        if (!which(items[i])) continue;
        items.splice(i, 1);
        removed = true;
        if (!all) break;
    }
    if (!items.length) map.delete(key);
    return removed;
}

/** Whether the filter levels `rest` match the topic's levels from `at` on. */
export function matchRest(rest: string[], words: string[], at: number, from = 0): boolean {
    for (let i = from; i < rest.length; i++) {
        const w = rest[i];
        if (w === '#') {
            for (let j = at; j <= words.length; j++) if (matchRest(rest, words, j, i + 1)) return true;
            return false;
        }
        if (at >= words.length) return false;
        if (w !== '+' && w !== words[at]) return false;
        at++;
    }
    return at === words.length;
}

import { describe, expect, it } from 'vitest';
import { compileConditions } from '../../server/rules/evaluate';
import { buildIndex } from '../../server/rules/ruleIndex';
import type { Condition, StoredRule } from '../../server/rules/types';

/** The rule index (server/rules/ruleIndex.ts) must never hide a rule whose conditions hold: it only narrows. */

const base: Omit<StoredRule, 'id' | 'conditions' | 'match'> = {
    name: 'r',
    type: 1,
    projectId: null,
    productId: 1,
    productKey: 'pk',
    productName: 'p',
    deviceId: null,
    deviceName: null,
    enabled: true,
    description: null,
    triggers: [{ id: 't', type: 'property' }],
    durationSeconds: 0,
    timeWindow: null,
    actions: [],
    autoClear: true,
};

const rule = (id: number, match: 'all' | 'any', conditions: Condition[]): StoredRule => ({
    ...base,
    id,
    match,
    conditions,
});

/** A small deterministic generator (the same cases every run). */
function random(seed: number) {
    let x = seed;
    return () => {
        x = (x * 1103515245 + 12345) % 2147483648;
        return x / 2147483648;
    };
}

const OPS: Condition['operator'][] = ['>', '>=', '<', '<=', '==', '!=', 'between'];
const VALUES: unknown[] = [0, 1, 5, 10, 10.5, 20, '10', '5', 'on', 'off', true, false, ''];

describe('rule index', () => {
    it('visits every rule whose conditions hold (all and any, every operator, mixed value types)', () => {
        const r = random(7);
        const pick = <T>(a: readonly T[]) => a[Math.floor(r() * a.length)];
        const rules: StoredRule[] = [];
        for (let id = 1; id <= 600; id++) {
            const n = 1 + Math.floor(r() * 3);
            const conditions: Condition[] = Array.from({ length: n }, (_, i) => {
                const operator = pick(OPS);
                const numericOp = operator !== '==' && operator !== '!=';
                return {
                    id: String(i),
                    source: 'property',
                    identifier: pick(['x', 'y', 'z']),
                    operator,
                    value: numericOp ? pick([0, 5, 10, 20]) : pick([1, 0, 'on', 10, true, { a: 1 }]),
                    value2: operator === 'between' ? pick([5, 10, 20, 30]) : undefined,
                };
            });
            rules.push(rule(id, r() < 0.5 ? 'all' : 'any', conditions));
        }
        const index = buildIndex(rules.map((rl) => ({ rule: rl, item: rl })));
        expect(index.indexed).toBeGreaterThan(400);
        const missed: string[] = [];
        for (let k = 0; k < 400; k++) {
            const properties: Record<string, unknown> = {};
            for (const p of ['x', 'y', 'z']) if (r() < 0.8) properties[p] = pick([...VALUES, { a: 1 }]);
            const seen = new Set<StoredRule>(index.plain);
            index.visit(properties, (rl) => seen.add(rl));
            for (const rl of rules)
                if (!seen.has(rl) && compileConditions(rl.conditions, rl.match)({ properties }))
                    missed.push(`${rl.match} ${JSON.stringify(rl.conditions)} ${JSON.stringify(properties)}`);
        }
        expect(missed).toEqual([]);
    });

    it('an `any` rule is reached only through a condition that holds', () => {
        const any = (id: number, t: number) =>
            rule(id, 'any', [
                { id: 'a', source: 'property', identifier: 'ActivePower', operator: '>', value: t },
                { id: 'b', source: 'property', identifier: 'FirmwareVersion', operator: '==', value: 'v0' },
                { id: 'c', source: 'property', identifier: 'Brightness', operator: 'between', value: t, value2: t + 5 },
            ]);
        const rules = Array.from({ length: 1000 }, (_, i) => any(i, 200 + i));
        const index = buildIndex(rules.map((rl) => ({ rule: rl, item: rl })));
        expect(index.plain).toHaveLength(0);
        const visited = (properties: Record<string, unknown>) => {
            const ids = new Set<number>();
            index.visit(properties, (rl) => ids.add(rl.id));
            return ids;
        };
        expect(visited({ ActivePower: 150, Brightness: 80, FirmwareVersion: 'v1' }).size).toBe(0);
        expect([...visited({ ActivePower: 202.5 })]).toEqual([0, 1, 2]);
        expect(visited({ FirmwareVersion: 'v0' }).size).toBe(1000);
        expect([...visited({ Brightness: '206' })].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('rules the index cannot hold stay plain (event conditions, status triggers, object values)', () => {
        const plain = [
            rule(1, 'all', [{ id: 'a', source: 'event', identifier: 'E', field: 'f', operator: '==', value: 1 }]),
            {
                ...rule(2, 'all', [{ id: 'a', source: 'property', identifier: 'x', operator: '>', value: 1 }]),
                triggers: [{ id: 't', type: 'status' as const, status: 'any' as const }],
            },
            rule(3, 'any', [
                { id: 'a', source: 'property', identifier: 'x', operator: '>', value: 1 },
                { id: 'b', source: 'property', identifier: 'y', operator: '==', value: { a: 1 } },
            ]),
            rule(4, 'all', []),
        ];
        const index = buildIndex(plain.map((rl) => ({ rule: rl, item: rl.id })));
        expect(index.plain).toEqual([1, 2, 3, 4]);
    });
});

import { describe, expect, it } from 'vitest';
import { loadRightTable } from '../../server/rights/table';

/** A two-operation contract in openapi.yaml's shape. */
const contract = (right: string) => `
paths:
  /api/thing:
    get:
      operationId: listThing
    post:
      operationId: saveThing
      x-right: ${right}
  /api/thing/{id}:
    delete:
      operationId: deleteThing
      x-references: { id: device }
  /api/open:
    get:
      operationId: open
      security: []
`;

describe('right table read from the contract (parsed once per content, kept between starts)', () => {
    it('reads x-right, x-references and open operations', () => {
        const table = loadRightTable(contract('device.create'));
        expect(table.rightFor('POST', '/api/thing')).toBe('device.create');
        expect(table.rightFor('GET', '/api/thing')).toBeUndefined();
        // A write without x-right is for administrators; a templated path matches one segment.
        expect(table.rightFor('DELETE', '/api/thing/12')).toBe('admin');
        expect(table.referencesFor('DELETE', '/api/thing/12')).toEqual({ id: 'device' });
        expect(table.entries.find((e) => e.path === '/api/open')?.open).toBe(true);
    });

    it('reads a changed contract again instead of answering the parse kept for the old one', () => {
        expect(loadRightTable(contract('device.create')).rightFor('POST', '/api/thing')).toBe('device.create');
        expect(loadRightTable(contract('product.create')).rightFor('POST', '/api/thing')).toBe('product.create');
        expect(loadRightTable(contract('device.create')).rightFor('POST', '/api/thing')).toBe('device.create');
    });

    it('still refuses a right that is not in the catalogue, from a kept parse too', () => {
        const bad = contract('no-such-right');
        expect(() => loadRightTable(bad)).toThrow(/no-such-right/);
        expect(() => loadRightTable(bad)).toThrow(/no-such-right/);
    });
});

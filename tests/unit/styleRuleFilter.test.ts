// @vitest-environment jsdom
import { afterEach, describe, expect, it } from 'vitest';
import { installStyleRuleFilter, selectorNeeds } from '../resources/styleRuleFilter';

/** The resource tests' pre-check on jsdom's style rules (tests/resources/styleRuleFilter.ts) must not change a match. */

type Check = (selector: string, node: unknown) => { match: boolean };
const engineOf = () => {
    const symbol = Object.getOwnPropertySymbols(document).find((s) => s.description === 'impl')!;
    return (document as unknown as Record<symbol, { _domSelector: { check: Check } }>)[symbol]._domSelector;
};
const implOf = (element: Element) => {
    const symbol = Object.getOwnPropertySymbols(element).find((s) => s.description === 'impl')!;
    return (element as unknown as Record<symbol, unknown>)[symbol];
};

const SELECTORS = [
    '.a',
    '.a.b',
    '.x .b',
    '.x>.b',
    '.x + .b',
    '.x ~ span',
    '.a:hover',
    '.b::before',
    'div.a',
    'DIV.a',
    'td, th',
    '.a, span',
    'span, .nope',
    ':not(.a)',
    '.b:not(.a)',
    '[class~="a"]',
    'div[data-x="a b"].a',
    '*.a',
    '*',
    '#one',
    'div#one.a',
    '.css-1x2y-MuiButton-root.Mui-disabled',
    'label[data-shrink="false"]+.b .a',
    ':is(.a, .b)',
    'input:checked',
    'circle.a',
    'svg .a',
    'p',
];

const MARKUP = `
  <div class="x">
    <div id="one" class="a b" data-x="a b"><span class="b">s</span></div>
    <span class="a">t</span>
    <label data-shrink="false">l</label><div class="b"><i class="a">i</i></div>
    <button class="css-1x2y-MuiButton-root Mui-disabled">b</button>
    <table><tbody><tr><td class="a">1</td><th>2</th></tr></tbody></table>
    <input type="checkbox" checked class="c">
    <svg><circle class="a"></circle></svg>
    <p class="A">P</p>
  </div>`;

afterEach(() => {
    document.head.innerHTML = '';
    document.body.innerHTML = '';
});

describe('styleRuleFilter', () => {
    it('reads what the rightmost compound of each selector needs, or gives up', () => {
        expect(selectorNeeds('.x .b:hover')).toEqual([{ tag: null, classes: ['b'] }]);
        expect(selectorNeeds('td, th')).toEqual([
            { tag: 'td', classes: [] },
            { tag: 'th', classes: [] },
        ]);
        expect(selectorNeeds('DIV.a.b::before')).toEqual([{ tag: 'div', classes: ['a', 'b'] }]);
        expect(selectorNeeds('label[data-shrink="false"]+.b .c')).toEqual([{ tag: null, classes: ['c'] }]);
        expect(selectorNeeds('.b:not(.a)')).toEqual([{ tag: null, classes: ['b'] }]);
        for (const unreadable of [':not(.a)', '[class~="a"]', '*', '#one', '.a, [hidden]', '.a\\:b', 'svg|a', '.a('])
            expect(selectorNeeds(unreadable)).toBeNull();
    });

    it('gives the match jsdom gives for every selector and element, and skips the check where it can', () => {
        document.body.innerHTML = MARKUP;
        const engine = engineOf();
        const original = engine.check;
        let calls = 0;
        engine.check = (selector, node) => {
            calls++;
            return original(selector, node);
        };
        expect(installStyleRuleFilter()).toBe(true);
        const filtered = engine.check;
        const elements = Array.from(document.body.querySelectorAll('*'));
        let pairs = 0;
        for (const element of elements)
            for (const selector of SELECTORS) {
                const impl = implOf(element);
                const expected = original(selector, impl).match;
                const before = calls;
                expect([selector, element.outerHTML.slice(0, 40), filtered(selector, impl).match]).toEqual([
                    selector,
                    element.outerHTML.slice(0, 40),
                    expected,
                ]);
                calls = before;
                pairs++;
            }
        calls = 0;
        for (const element of elements) for (const selector of SELECTORS) filtered(selector, implOf(element));
        expect(calls).toBeLessThan(pairs / 2);
    });

    it('leaves computed styles as they were', () => {
        document.head.innerHTML = `<style>
            .x .b { display: none } td, th { visibility: hidden } .a.b span { color: red }
            @media screen { .c { display: inline-block } } :not(.a) > i { visibility: visible }
        </style>`;
        document.body.innerHTML = MARKUP;
        const styles = () =>
            Array.from(document.body.querySelectorAll('*')).map((e) => {
                const s = getComputedStyle(e);
                return [s.display, s.visibility, s.color].join(' ');
            });
        const before = styles();
        installStyleRuleFilter();
        document.body.innerHTML = MARKUP; // jsdom caches computed styles per element until the tree changes
        expect(styles()).toEqual(before);
        expect(before).toContain('none visible rgb(0, 0, 0)');
        expect(before).toContain('table-cell hidden rgb(0, 0, 0)');
    });
});

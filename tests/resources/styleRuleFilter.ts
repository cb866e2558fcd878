/**
 * jsdom's getComputedStyle matches the element against every rule of every style sheet (jsdom 27,
 * living/helpers/style-rules.js: its own ~140 default rules, then the document's), one `DOMSelector.check` each.
 * Emotion writes the console's ~900 MUI rules into the document, and Testing Library asks for computed styles of every
 * candidate and its ancestors on each ByRole query (hidden or not, accessible names): a third of a form test's CPU
 * went to those checks.
 *
 * A complex selector can only match an element that has the tag and every class its rightmost compound names
 * (`.a .b:hover` needs class b, `td, th` a td or a th): that is how browsers index rules. This answers "no match"
 * for a rule none of whose selectors can match before jsdom's full check, and leaves every rule it cannot read
 * (escapes, namespaces, ids and attributes alone) to jsdom, so the cascade jsdom computes is the one it computed
 * before. jsdom offers no option for this; the hook is its document's DOMSelector instance.
 */

type Check = (selector: string, node: ElementImpl, opt?: object) => unknown;
interface ElementImpl {
    localName?: string;
    getAttributeNS?(namespace: string | null, name: string): string | null;
}
interface DocumentImpl {
    _domSelector?: { check: Check };
}
/** What the rightmost compound of one complex selector requires: a tag (lower case) or none, and classes. */
export interface Needs {
    tag: string | null;
    classes: string[];
}

const NO_MATCH = Object.freeze({ match: false, pseudoElement: null, ast: null });
const NAME_CHAR = /[\w\-\u0080-\uffff]/;
const SPACE = /[\t\n\f\r ]+/;

/** Splits at top-level occurrences of the given characters, outside brackets, parentheses and quotes; null if unbalanced. */
function scan(text: string, onTopLevel: (c: string, i: number) => void): boolean {
    let depth = 0;
    let quote = '';
    for (let i = 0; i < text.length; i++) {
        const c = text[i];
        if (quote) {
            if (c === quote) quote = '';
        } else if (c === '"' || c === "'") quote = c;
        else if (c === '(' || c === '[') depth++;
        else if (c === ')' || c === ']') depth--;
        else if (depth === 0) onTopLevel(c, i);
        if (depth < 0) return false;
    }
    return !quote && depth === 0;
}

function compoundNeeds(complex: string): Needs | null {
    const text = complex.trim();
    if (!text) return null;
    let start = 0;
    const combinators = ' \t\n\f\r>+~';
    if (!scan(text, (c, i) => combinators.includes(c) && (start = i + 1))) return null;
    const compound = text.slice(start);
    let tag: string | null = null;
    let i = 0;
    while (i < compound.length && NAME_CHAR.test(compound[i])) i++;
    if (i > 0) tag = compound.slice(0, i).toLowerCase();
    else if (compound[0] === '*') i = 1;
    const classes: string[] = [];
    let bad = false;
    scan(compound.slice(i), (c, at) => {
        if (c === '|') bad = true;
        if (c !== '.') return;
        const from = i + at + 1;
        let to = from;
        while (to < compound.length && NAME_CHAR.test(compound[to])) to++;
        if (to === from) bad = true;
        else classes.push(compound.slice(from, to));
    });
    return bad ? null : { tag, classes };
}

/** What each selector of a list requires of an element, or null when some selector cannot be read here. */
export function selectorNeeds(selector: string): Needs[] | null {
    if (selector.includes('\\') || selector.includes('|')) return null;
    const cuts: number[] = [];
    if (!scan(selector, (c, i) => c === ',' && cuts.push(i))) return null;
    const parts = [-1, ...cuts].map((from, k) => selector.slice(from + 1, cuts[k] ?? selector.length));
    const needs: Needs[] = [];
    for (const part of parts) {
        const one = compoundNeeds(part);
        if (!one || (!one.tag && !one.classes.length)) return null;
        needs.push(one);
    }
    return needs;
}

const isElement = (node: ElementImpl | undefined): node is ElementImpl & Required<ElementImpl> =>
    typeof node?.localName === 'string' && typeof node.getAttributeNS === 'function';

const implOf = (doc: Document): DocumentImpl | undefined => {
    const symbol = Object.getOwnPropertySymbols(doc).find((s) => s.description === 'impl');
    return symbol ? (doc as unknown as Record<symbol, DocumentImpl>)[symbol] : undefined;
};

/**
 * Installs the pre-check on this document's selector engine. Returns false (and changes nothing) when jsdom's
 * internals are not the ones this knows, or the document is in quirks mode (classes match case-insensitively there).
 */
export function installStyleRuleFilter(doc: Document = document): boolean {
    const selectorEngine = implOf(doc)?._domSelector;
    if (!selectorEngine || typeof selectorEngine.check !== 'function' || doc.compatMode !== 'CSS1Compat') return false;
    const check = selectorEngine.check;
    const known = new Map<string, Needs[] | null>();
    // jsdom checks one element against every rule in a row: its class list is split once per element and class value.
    let lastNode: ElementImpl | undefined;
    let lastClass: string | null | undefined;
    let tokens: string[] = [];
    const satisfies = (node: ElementImpl & Required<ElementImpl>, needs: Needs) => {
        if (needs.tag && needs.tag !== node.localName.toLowerCase()) return false;
        if (!needs.classes.length) return true;
        const own = node.getAttributeNS(null, 'class');
        if (node !== lastNode || own !== lastClass) {
            lastNode = node;
            lastClass = own;
            tokens = own ? own.split(SPACE) : [];
        }
        return needs.classes.every((name) => tokens.includes(name));
    };
    selectorEngine.check = (selector, node, opt) => {
        let needs = known.get(selector);
        if (needs === undefined) {
            needs = selectorNeeds(selector);
            known.set(selector, needs);
        }
        if (needs && isElement(node) && !needs.some((one) => satisfies(node, one))) return NO_MATCH;
        return check(selector, node, opt);
    };
    return true;
}

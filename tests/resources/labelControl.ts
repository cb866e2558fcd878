import { createRequire } from 'node:module';

/**
 * jsdom's `label.control` (jsdom 27, living/nodes/HTMLLabelElement-impl.js) walks the whole document for the element
 * whose id the label's `for` names, and `input.labels` asks that of every label in the document. Accessible names
 * (every ByRole query with a name, ByLabelText) ask for both on the console's long forms: a tenth of a form test's CPU.
 *
 * jsdom also keeps a map from id to the attached elements that carry it (the one getElementById reads). When exactly
 * one element of the label's document carries the id, it is the first in tree order, so this answers from the map;
 * with none the walk would find none. Every other case (no `for`, a duplicated id, a label outside the document)
 * takes jsdom's walk. jsdom offers no option for this; the hook is its label element class.
 */

interface NodeImpl {
    _ownerDocument: DocumentImpl;
    getRootNode(options: object): NodeImpl;
    getAttributeNS(namespace: null, name: string): string | null;
}
interface DocumentImpl extends NodeImpl {
    _ids?: Record<string, NodeImpl[] | undefined>;
}

const implOf = <T>(object: object): T | undefined => {
    const symbol = Object.getOwnPropertySymbols(object).find((s) => s.description === 'impl');
    return symbol ? (object as Record<symbol, T>)[symbol] : undefined;
};

/** Returns false (and changes nothing) when jsdom's internals are not the ones this knows. */
export function installLabelControlLookup(doc: Document = document): boolean {
    const label = implOf<NodeImpl>(doc.createElement('label'));
    const proto = label && Object.getPrototypeOf(label);
    const original = proto && Object.getOwnPropertyDescriptor(proto, 'control');
    let isLabelable: ((node: NodeImpl) => boolean) | undefined;
    try {
        const jsdomRequire = createRequire(createRequire(import.meta.url).resolve('jsdom'));
        isLabelable = jsdomRequire('./jsdom/living/helpers/form-controls.js').isLabelable;
    } catch {
        return false;
    }
    if (!label || !original?.get || typeof isLabelable !== 'function' || !('_ids' in label._ownerDocument))
        return false;
    if ('walk' in original.get) return true;
    const walk = original.get;
    const get = function (this: NodeImpl) {
        const id = this.getAttributeNS(null, 'for');
        const root = id ? this.getRootNode({}) : undefined;
        const ids = (root as DocumentImpl | undefined)?._ids;
        if (!id || !ids || root !== this._ownerDocument) return walk.call(this);
        const inTree = (ids[id] ?? []).filter((node) => node.getRootNode({}) === root);
        if (inTree.length > 1) return walk.call(this);
        return inTree.length === 1 && isLabelable!(inTree[0]) ? inTree[0] : null;
    };
    // `walk` marks it installed (each test file's setup runs in a worker that may have installed it) and keeps jsdom's.
    Object.defineProperty(proto, 'control', { ...original, get: Object.assign(get, { walk }) });
    return true;
}

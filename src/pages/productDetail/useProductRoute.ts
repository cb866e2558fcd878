import { useCallback } from 'react';
import { useLocation, useNavigate } from 'react-admin';
import { TABS, type ProductTab } from './types';

/**
 * Reads the tab and the product from the URL. Accepted forms: /productDetail?productId=1 (view),
 * /productDetail/{view|topic|function}?productId=1, and /productDetail/{productId} (device screens link so).
 * Parsing the path instead of nesting routes keeps this independent of where the engine mounts the page.
 */
export function useProductRoute() {
    const { pathname, search } = useLocation();
    const navigate = useNavigate();

    const segments = pathname.split('/');
    const at = segments.lastIndexOf('productDetail');
    const base = at >= 0 ? segments.slice(0, at + 1).join('/') : '/productDetail';
    const rest = at >= 0 ? segments.slice(at + 1).filter(Boolean) : [];
    const first = rest[0] ?? '';

    const tab: ProductTab = (TABS as readonly string[]).includes(first) ? (first as ProductTab) : 'view';
    const raw = (/^\d+$/.test(first) ? first : (new URLSearchParams(search).get('productId') ?? '')).trim();
    const productId = /^\d+$/.test(raw) ? Number(raw) : null;

    const goTo = useCallback(
        (next: ProductTab) => navigate(`${base}/${next}${productId !== null ? `?productId=${productId}` : ''}`),
        [base, navigate, productId],
    );

    return { tab, productId, rawProductId: raw, goTo };
}

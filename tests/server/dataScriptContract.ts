import { DEFAULT_SCRIPT } from '../../server/scripts/template';
import type { TestServer } from '../../server/testing';
import { createProduct } from './devicesSupport';
import { call, json, type Answer } from './support';

/** Happy cases of the data-parsing script API (contract.test.ts): a 透传/自定义 product made once. */
export function dataScriptHappyCases(s: () => TestServer) {
    let product: Promise<number>;
    const productId = () => (product ??= createProduct(s(), { dataType: 1 }).then((p) => Number(p.productId)));
    const cases: Record<string, () => Promise<Answer<unknown>>> = {
        'GET /api/product/script': async () => call(s(), 'GET', `/api/product/script?productId=${await productId()}`),
        'POST /api/product/script/save': async () =>
            call(
                s(),
                'POST',
                '/api/product/script/save',
                json({ productId: await productId(), script: DEFAULT_SCRIPT }),
            ),
        'POST /api/product/script/publish': async () =>
            call(
                s(),
                'POST',
                '/api/product/script/publish',
                json({ productId: await productId(), script: DEFAULT_SCRIPT }),
            ),
        'POST /api/product/script/debug': async () =>
            call(
                s(),
                'POST',
                '/api/product/script/debug',
                json({
                    productId: await productId(),
                    script: DEFAULT_SCRIPT,
                    direction: 'up',
                    payload: '000000000100320100000000',
                }),
            ),
    };
    return cases;
}

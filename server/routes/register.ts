import { Hono, type Context } from 'hono';
import type { Services } from '../deps';
import { ALINK_CODE, Refusal, registerDirect } from '../domain/dynamicRegister';
import { limitBody } from '../http/guard';

/** The largest registration body read: five short fields (Alibaba's own are under 200 bytes). */
export const REGISTER_BODY_MAX = 4 * 1024;

const FIELDS = ['productKey', 'deviceName', 'random', 'signMethod', 'sign'] as const;

/** Alibaba's answer: HTTP 200 with `{ code, data, message }`, whatever the outcome (the SDKs read `code`). */
const answer = (c: Context, code: number, message: string, data: unknown = {}) => c.json({ code, data, message });

/** The five fields from a form body (what the SDKs send) or a JSON one; NUL and repeated keys are refused. */
async function fieldsOf(c: Context): Promise<Record<string, string> | undefined> {
    const text = await c.req.text();
    const type = c.req.header('content-type') ?? '';
    let entries: Array<[string, unknown]>;
    if (type.includes('application/json')) {
        try {
            const body: unknown = JSON.parse(text);
            if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
            entries = Object.entries(body);
        } catch {
            return undefined;
        }
    } else {
        entries = [...new URLSearchParams(text)];
    }
    const out: Record<string, string> = {};
    for (const [k, v] of entries) {
        if (!(FIELDS as readonly string[]).includes(k)) continue;
        if (typeof v !== 'string' || v.includes('\u0000') || k in out) return undefined;
        out[k] = v.trim();
    }
    return out;
}

/**
 * POST /auth/register/device: Alibaba's HTTPS dynamic registration of a directly connected device (一型一密, with
 * pre-registration). No console session: the signature made with the ProductSecret is the proof. Served on the
 * platform's HTTP and HTTPS listeners; the body is bounded before it is read.
 */
export function registerRoutes({ db }: Services) {
    const app = new Hono();
    app.post(
        '/auth/register/device',
        limitBody({
            maxSize: REGISTER_BODY_MAX,
            onError: (c) => c.json({ code: ALINK_CODE.parameter, data: {}, message: '请求体过大' }, 413),
        }),
        async (c) => {
            const f = await fieldsOf(c);
            if (!f) return answer(c, ALINK_CODE.parameter, '请求参数格式不正确');
            try {
                const issued = await registerDirect(
                    db,
                    {
                        productKey: f.productKey ?? '',
                        deviceName: f.deviceName ?? '',
                        random: f.random ?? '',
                        signMethod: f.signMethod,
                        sign: f.sign ?? '',
                    },
                    'https',
                );
                const { productKey, deviceName, deviceSecret } = issued;
                return answer(c, 200, 'success', { productKey, deviceName, deviceSecret });
            } catch (err) {
                if (err instanceof Refusal) return answer(c, err.code, err.message);
                throw err;
            }
        },
    );
    return app;
}

import * as yup from 'yup';

/** Device simulation (/monitor/imitate): the limits and messages the form and the server share. */

export const SIMULATION_MODES = [
    { id: 'random', name: '随机取值' },
    { id: 'fixed', name: '固定取值' },
];

export const SIMULATION_INTERVAL_MIN = 1;
export const SIMULATION_INTERVAL_MAX = 3600;
/** Devices one simulation runs at most (chosen plus newly created). */
export const SIMULATION_DEVICES_MAX = 100;

export const SIMULATION_MESSAGES = {
    product: '请选择产品',
    devices: '请选择设备或填写新建模拟设备数量',
    tooMany: `每个模拟最多${SIMULATION_DEVICES_MAX}台设备`,
    amount: `新建模拟设备数量须为0~${SIMULATION_DEVICES_MAX}的整数`,
    interval: `上报间隔须为${SIMULATION_INTERVAL_MIN}~${SIMULATION_INTERVAL_MAX}秒的整数`,
    intervalRequired: '请输入上报间隔',
    mode: '请选择取值方式',
    fixed: '固定取值时请至少填写一个属性的值',
} as const;

const blankToUndefined = (v: unknown, raw: unknown) =>
    raw === '' || raw === null || raw === undefined ? undefined : v;

const interval = yup
    .number()
    .transform(blankToUndefined)
    .typeError(SIMULATION_MESSAGES.interval)
    .required(SIMULATION_MESSAGES.intervalRequired)
    .integer(SIMULATION_MESSAGES.interval)
    .min(SIMULATION_INTERVAL_MIN, SIMULATION_MESSAGES.interval)
    .max(SIMULATION_INTERVAL_MAX, SIMULATION_MESSAGES.interval);

const amount = yup
    .number()
    .transform(blankToUndefined)
    .typeError(SIMULATION_MESSAGES.amount)
    .integer(SIMULATION_MESSAGES.amount)
    .min(0, SIMULATION_MESSAGES.amount)
    .max(SIMULATION_DEVICES_MAX, SIMULATION_MESSAGES.amount);

const mode = yup.string().required(SIMULATION_MESSAGES.mode).oneOf(['random', 'fixed'], SIMULATION_MESSAGES.mode);

/** The 新建模拟 form: the product by its ProductKey, fixed values as key / value rows (identifier, value). */
export const simulationFormSchema = yup.object({
    productKey: yup.string().trim().required(SIMULATION_MESSAGES.product),
    deviceIds: yup
        .array()
        .of(yup.mixed<string | number>().required())
        .max(SIMULATION_DEVICES_MAX, SIMULATION_MESSAGES.tooMany),
    amount: amount
        .test('devices', SIMULATION_MESSAGES.devices, (value, ctx) => {
            const chosen = (ctx.parent as { deviceIds?: unknown[] }).deviceIds?.length ?? 0;
            return chosen > 0 || (value ?? 0) > 0;
        })
        .test('total', SIMULATION_MESSAGES.tooMany, (value, ctx) => {
            const chosen = (ctx.parent as { deviceIds?: unknown[] }).deviceIds?.length ?? 0;
            return chosen + (value ?? 0) <= SIMULATION_DEVICES_MAX;
        }),
    intervalSeconds: interval,
    mode,
    fixedValues: yup
        .array()
        .of(yup.object({ key: yup.string(), value: yup.mixed() }))
        .when('mode', {
            is: 'fixed',
            then: (s) =>
                s.test('some', SIMULATION_MESSAGES.fixed, (rows) =>
                    (rows ?? []).some((r) => String(r?.key ?? '').trim() !== ''),
                ),
        }),
    events: yup.boolean(),
    start: yup.boolean(),
});

/** What POST /api/simulation/save reads besides deviceIds (a list) and fixedValues (a JSON object). */
export const simulationCreateSchema = yup.object({
    productId: yup
        .number()
        .transform(blankToUndefined)
        .typeError(SIMULATION_MESSAGES.product)
        .required(SIMULATION_MESSAGES.product)
        .integer(SIMULATION_MESSAGES.product)
        .min(1, SIMULATION_MESSAGES.product),
    amount: amount.optional(),
    intervalSeconds: interval,
    mode,
    events: yup.boolean().transform(blankToUndefined).typeError('events 应为 true 或 false').optional(),
    start: yup.boolean().transform(blankToUndefined).typeError('start 应为 true 或 false').optional(),
});

import { randomBytes } from 'node:crypto';
import { Cron } from 'croner';
import { and, eq } from 'drizzle-orm';
import {
    NUMERIC_OPERATORS,
    NUMERIC_TYPES,
    OPERATORS,
    RULE_LIMITS,
    RULE_MESSAGES,
    TRIGGER_TYPES,
} from '../../schemas/ruleEngine';
import type { Db } from '../db/client';
import { devices, notifyChannels, projects } from '../db/schema';
import { productByKey } from '../domain/devices';
import { OTA_MODULE } from '../../schemas/ota';
import { badRequest } from '../http/errors';
import type { Directory, ThingFunction, ThingModelIndex } from '../mqtt/directory';
import { checkValue, type TslDataType } from '../mqtt/thingValues';
import type { Action, Condition, Operator, RuleDefinition, TimeWindow, Trigger } from './types';

/**
 * Turns a rule as the console or a client sends it (JSON) into a RuleDefinition, or answers 400 in Chinese naming
 * what is wrong: a rule may only name identifiers the product's thing model has, compare numbers only on numeric
 * types, and give values its data types accept (ranges, enums, lengths).
 */

type Body = Record<string, unknown>;

export const rowId = () => randomBytes(4).toString('hex');

const text = (v: unknown): string =>
    typeof v === 'string' ? v.trim() : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';

function list(v: unknown, name: string): Body[] {
    if (v === undefined || v === null || v === '') return [];
    let value = v;
    if (typeof value === 'string') {
        try {
            value = JSON.parse(value);
        } catch {
            throw badRequest(`${name}格式不正确：应为列表`);
        }
    }
    if (!Array.isArray(value)) throw badRequest(`${name}格式不正确：应为列表`);
    if (value.length > RULE_LIMITS.rowsMax) throw badRequest(RULE_MESSAGES.tooManyRows);
    return value.map((row, i) => {
        if (!row || typeof row !== 'object' || Array.isArray(row))
            throw badRequest(`${name}第 ${i + 1} 行格式不正确：应为对象`);
        return row as Body;
    });
}

const ID_RE = /^[A-Za-z0-9_-]{1,32}$/;
const keepId = (row: Body) => (typeof row.id === 'string' && ID_RE.test(row.id) ? row.id : rowId());

function bool(v: unknown, fallback: boolean): boolean {
    if (v === undefined || v === null || v === '') return fallback;
    if (v === true || v === 'true' || v === 1 || v === '1') return true;
    if (v === false || v === 'false' || v === 0 || v === '0') return false;
    throw badRequest('开关参数应为 true 或 false');
}

/** A value from a form (text) or JSON, as the data type wants it: numbers for numeric, bool and enum types. */
export function coerce(dataType: TslDataType | null, raw: unknown): unknown {
    const type = dataType?.type;
    if (typeof raw === 'string' && ['int', 'float', 'double', 'bool', 'enum', 'date'].includes(type ?? '')) {
        const s = raw.trim();
        if (type === 'bool' && (s === 'true' || s === 'false')) return s === 'true' ? 1 : 0;
        return s === '' ? raw : Number(s);
    }
    if (type === 'bool' && typeof raw === 'boolean') return raw ? 1 : 0;
    return raw;
}

function checkOperand(fn: { dataType: TslDataType | null }, raw: unknown, where: string): unknown {
    if (raw === undefined || raw === null || raw === '') throw badRequest(`${where}请输入比较值`);
    const value = coerce(fn.dataType, raw);
    const why = checkValue(fn.dataType, value);
    if (why) throw badRequest(`${where}的比较值${why}`);
    return value;
}

const TIME_RE = /^([01]\d|2[0-3]):[0-5]\d$/;

function timeWindowOf(raw: unknown): TimeWindow | null {
    if (raw === undefined || raw === null || raw === '') return null;
    const w = (typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Body;
    const start = text(w.start);
    const end = text(w.end);
    if (!start && !end) return null;
    if (!TIME_RE.test(start) || !TIME_RE.test(end)) throw badRequest(RULE_MESSAGES.timeWindow);
    if (start === end) throw badRequest('生效时段的开始和结束不能相同');
    return { start, end };
}

function triggerOf(row: Body, i: number, model: ThingModelIndex): Trigger {
    const where = `触发条件第 ${i + 1} 行`;
    const type = text(row.type);
    if (!TRIGGER_TYPES.some((t) => t.id === type)) throw badRequest(`${where}：请选择触发类型`);
    const id = keepId(row);
    switch (type) {
        case 'property': {
            const identifier = text(row.identifier);
            if (identifier && !model.properties.has(identifier))
                throw badRequest(`${where}：属性 ${identifier} 不在产品的物模型中`);
            return { id, type, ...(identifier ? { identifier } : {}) };
        }
        case 'event': {
            const identifier = text(row.identifier);
            if (!identifier) throw badRequest(`${where}：请选择事件`);
            if (!model.events.has(identifier)) throw badRequest(`${where}：事件 ${identifier} 不在产品的物模型中`);
            return { id, type, identifier };
        }
        case 'status': {
            const status = text(row.status) || 'any';
            if (!['online', 'offline', 'any'].includes(status))
                throw badRequest(`${where}：上下线状态应为 online、offline 或 any`);
            return { id, type, status: status as Trigger['status'] };
        }
        case 'otaFailed': {
            const module = text(row.module);
            if (module && !OTA_MODULE.test(module))
                throw badRequest(`${where}：模块名只能包含字母、数字、下划线、中划线和点号，不超过64个字符`);
            return { id, type, ...(module ? { module } : {}) };
        }
        default: {
            const cron = text(row.cron);
            if (!cron) throw badRequest(`${where}：请输入 cron 表达式`);
            try {
                new Cron(cron, { paused: true }).stop();
            } catch {
                throw badRequest(`${where}：cron 表达式不正确（如 0 8 * * * 表示每天 8 点）`);
            }
            return { id, type: 'schedule', cron };
        }
    }
}

function conditionOf(row: Body, i: number, model: ThingModelIndex): Condition {
    const where = `过滤条件第 ${i + 1} 行`;
    const source = text(row.source) || 'property';
    const identifier = text(row.identifier);
    const operator = text(row.operator) as Operator;
    if (!identifier) throw badRequest(`${where}：请选择${source === 'event' ? '事件' : '属性'}`);
    if (!OPERATORS.some((o) => o.id === operator)) throw badRequest(`${where}：请选择比较方式`);
    let fn: { dataType: TslDataType | null };
    let field: string | undefined;
    if (source === 'property') {
        const p = model.properties.get(identifier);
        if (!p) throw badRequest(`${where}：属性 ${identifier} 不在产品的物模型中`);
        fn = p;
    } else if (source === 'event') {
        const e = model.events.get(identifier);
        if (!e) throw badRequest(`${where}：事件 ${identifier} 不在产品的物模型中`);
        field = text(row.field);
        const out = e.outputData.find((o) => o.identifier === field);
        if (!out) throw badRequest(`${where}：事件 ${identifier} 没有输出参数 ${field || '（未选择）'}`);
        fn = out;
    } else throw badRequest(`${where}：条件来源应为 property 或 event`);
    const type = fn.dataType?.type ?? '';
    if (NUMERIC_OPERATORS.includes(operator) && !NUMERIC_TYPES.includes(type))
        throw badRequest(
            `${where}：${identifier}${field ? `.${field}` : ''} 的数据类型为 ${type || '未知'}，只能比较等于或不等于`,
        );
    const value = checkOperand(fn, row.value, where);
    const out: Condition = { id: keepId(row), source, identifier, operator, value };
    if (field) out.field = field;
    if (operator === 'between') {
        out.value2 = checkOperand(fn, row.value2, `${where}（上限）`);
        if ((out.value2 as number) < (value as number)) throw badRequest(`${where}：介于的上限不能小于下限`);
    }
    return out;
}

function paramsOf(raw: unknown, where: string): Record<string, unknown> {
    if (raw === undefined || raw === null || raw === '') return {};
    let v = raw;
    if (typeof v === 'string') {
        try {
            v = JSON.parse(v);
        } catch {
            throw badRequest(`${where}：服务参数应为 JSON 对象`);
        }
    }
    if (!v || typeof v !== 'object' || Array.isArray(v)) throw badRequest(`${where}：服务参数应为 JSON 对象`);
    return v as Record<string, unknown>;
}

export interface ValidateDeps {
    db: Db;
    directory: Directory;
}

/** The device named in an action row, of the rule's product unless the row names another (productKey). */
async function targetOf(
    deps: ValidateDeps,
    row: Body,
    where: string,
    rule: { productId: number; productKey: string },
): Promise<{ productKey?: string; deviceName?: string; model: ThingModelIndex }> {
    const productKey = text(row.productKey);
    const deviceName = text(row.deviceName);
    let productId = rule.productId;
    if (productKey && productKey !== rule.productKey) {
        const p = await productByKey(deps.db, productKey);
        if (!p) throw badRequest(`${where}：产品 ${productKey} 不存在`);
        if (!deviceName) throw badRequest(`${where}：其他产品的动作须指定设备`);
        productId = p.id;
    }
    if (deviceName) {
        const [d] = await deps.db
            .select({ id: devices.id })
            .from(devices)
            .where(and(eq(devices.productId, productId), eq(devices.deviceName, deviceName)));
        if (!d) throw badRequest(`${where}：设备 ${deviceName} 不存在`);
    }
    return {
        ...(productKey && productKey !== rule.productKey ? { productKey } : {}),
        ...(deviceName ? { deviceName } : {}),
        model: await deps.directory.model(productId),
    };
}

function content(raw: unknown, where: string, required: boolean): string | undefined {
    const c = typeof raw === 'string' ? raw.trim() : '';
    if (!c) {
        if (required) throw badRequest(`${where}：${RULE_MESSAGES.content}`);
        return undefined;
    }
    if (c.length > RULE_LIMITS.contentMax) throw badRequest(`${where}：内容不能超过${RULE_LIMITS.contentMax}个字符`);
    return c;
}

async function actionOf(
    deps: ValidateDeps,
    row: Body,
    i: number,
    rule: { productId: number; productKey: string },
): Promise<Action> {
    const where = `执行动作第 ${i + 1} 行`;
    const id = keepId(row);
    const type = text(row.type);
    switch (type) {
        case 'setProperty': {
            const { model, ...target } = await targetOf(deps, row, where, rule);
            const identifier = text(row.identifier);
            const fn: ThingFunction | undefined = model.properties.get(identifier);
            if (!fn) throw badRequest(`${where}：请选择物模型中的属性${identifier ? `（${identifier} 不存在）` : ''}`);
            if (fn.accessMode === 'r') throw badRequest(`${where}：属性 ${identifier} 为只读，不能设置`);
            if (row.value === undefined || row.value === null || row.value === '')
                throw badRequest(`${where}：请输入属性值`);
            const value = coerce(fn.dataType, row.value);
            const why = checkValue(fn.dataType, value);
            if (why) throw badRequest(`${where}：属性 ${identifier} 的值${why}`);
            return { id, type, ...target, identifier, value };
        }
        case 'invokeService': {
            const { model, ...target } = await targetOf(deps, row, where, rule);
            const identifier = text(row.identifier);
            const fn = model.services.get(identifier);
            if (!fn) throw badRequest(`${where}：请选择物模型中的服务${identifier ? `（${identifier} 不存在）` : ''}`);
            const params = paramsOf(row.params, where);
            for (const [key, v] of Object.entries(params)) {
                const input = fn.inputData.find((p) => p.identifier === key);
                if (!input) throw badRequest(`${where}：服务 ${identifier} 没有输入参数 ${key}`);
                params[key] = coerce(input.dataType, v);
                const why = checkValue(input.dataType, params[key]);
                if (why) throw badRequest(`${where}：参数 ${key} ${why}`);
            }
            return { id, type, ...target, identifier, params };
        }
        case 'alert': {
            const level = Number(text(row.level));
            if (![1, 2, 3].includes(level)) throw badRequest(`${where}：${RULE_MESSAGES.level}`);
            return { id, type, level: level as 1 | 2 | 3, content: content(row.content, where, true)! };
        }
        case 'notify': {
            const channelId = Number(text(row.channelId));
            if (!Number.isInteger(channelId) || channelId < 1) throw badRequest(`${where}：请选择通知方式`);
            const [ch] = await deps.db
                .select({ id: notifyChannels.id })
                .from(notifyChannels)
                .where(eq(notifyChannels.id, channelId));
            if (!ch) throw badRequest(`${where}：通知方式 ${channelId} 不存在`);
            const c = content(row.content, where, false);
            let onRecover: boolean;
            try {
                onRecover = bool(row.onRecover, false);
            } catch {
                throw badRequest(`${where}：恢复时通知应为 true 或 false`);
            }
            const rc = onRecover ? content(row.recoverContent, where, false) : undefined;
            return {
                id,
                type,
                channelId,
                ...(c ? { content: c } : {}),
                ...(onRecover ? { onRecover, ...(rc ? { recoverContent: rc } : {}) } : {}),
            };
        }
        default:
            throw badRequest(`${where}：请选择动作类型`);
    }
}

/** The rule in `body`, checked; `type` 1 scene linkage, 2 alert rule. */
export async function validateRule(deps: ValidateDeps, body: Body, type: 1 | 2): Promise<RuleDefinition> {
    const name = text(body.name);
    if (!name) throw badRequest(RULE_MESSAGES.name);
    if (name.length > RULE_LIMITS.nameMax) throw badRequest(RULE_MESSAGES.nameLength);
    const description = text(body.description);
    if (description.length > RULE_LIMITS.descriptionMax)
        throw badRequest(`描述不能超过${RULE_LIMITS.descriptionMax}个字符`);
    const productKey = text(body.productKey);
    if (!productKey) throw badRequest(RULE_MESSAGES.product);
    const product = await productByKey(deps.db, productKey);
    if (!product) throw badRequest(`产品 ${productKey} 不存在`);
    let projectId: number | null = null;
    const rawProject = text(body.projectId);
    if (rawProject) {
        projectId = Number(rawProject);
        if (!Number.isInteger(projectId) || projectId < 1 || projectId > 2_147_483_647)
            throw badRequest('项目ID必须是正整数');
        const [p] = await deps.db.select({ id: projects.id }).from(projects).where(eq(projects.id, projectId));
        if (!p) throw badRequest('项目不存在');
    }
    let deviceId: number | null = null;
    const deviceName = text(body.deviceName);
    if (deviceName) {
        const [d] = await deps.db
            .select({ id: devices.id })
            .from(devices)
            .where(and(eq(devices.productId, product.id), eq(devices.deviceName, deviceName)));
        if (!d) throw badRequest(`设备 ${deviceName} 不存在于产品 ${productKey}`);
        deviceId = Number(d.id);
    }
    const model = await deps.directory.model(product.id);
    const triggerRows = list(body.triggers, '触发条件');
    const triggers = triggerRows.map((r, i) => triggerOf(r, i, model));
    if (!triggers.length) throw badRequest(RULE_MESSAGES.triggers);
    const conditions = list(body.conditions, '过滤条件').map((r, i) => conditionOf(r, i, model));
    const match = text(body.match) || 'all';
    if (match !== 'all' && match !== 'any') throw badRequest('条件关系应为 all 或 any');
    const rawDuration = text(body.durationSeconds);
    const durationSeconds = rawDuration ? Number(rawDuration) : 0;
    if (!Number.isInteger(durationSeconds) || durationSeconds < 0 || durationSeconds > RULE_LIMITS.durationMax)
        throw badRequest(RULE_MESSAGES.duration);
    if (durationSeconds > 0 && !conditions.some((c) => c.source === 'property'))
        throw badRequest('持续时长只适用于属性条件，请添加属性条件或将持续时长设为 0');
    const ruleRef = { productId: product.id, productKey };
    const actions: Action[] = [];
    for (const [i, row] of list(body.actions, '执行动作').entries())
        actions.push(await actionOf(deps, row, i, ruleRef));
    if (!actions.length) throw badRequest(RULE_MESSAGES.actions);
    return {
        name,
        type,
        projectId,
        productId: product.id,
        deviceId,
        enabled: bool(body.enabled, true),
        description: description || null,
        triggers,
        match,
        conditions,
        durationSeconds,
        timeWindow: timeWindowOf(
            body.timeWindow ??
                (body.windowStart || body.windowEnd ? { start: body.windowStart, end: body.windowEnd } : null),
        ),
        actions,
        autoClear: bool(body.autoClear, true),
    };
}

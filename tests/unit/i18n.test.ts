import { describe, expect, it } from 'vitest';
import englishMessages from 'ra-language-english';
import { i18nProvider, zhCN } from '../../src/i18n';

function keys(value: unknown, prefix = ''): string[] {
    if (typeof value !== 'object' || value === null) return [prefix];
    return Object.entries(value).flatMap(([k, v]) => keys(v, prefix ? `${prefix}.${k}` : k));
}

const hasCjk = /[\u4e00-\u9fa5]/;

describe('zh-CN messages', () => {
    it('cover every key of ra-language-english, and nothing else', () => {
        expect(keys(zhCN).sort()).toEqual(keys(englishMessages).sort());
    });

    it('are Chinese and keep the interpolations of the plural (last) English form', () => {
        const get = (obj: unknown, path: string) =>
            path.split('.').reduce((o, k) => (o as Record<string, unknown>)[k], obj) as string;
        // SPEC.md's fixed toasts (修改成功, 删除成功) carry no count; one record is by far the usual case.
        const countless = new Set(['ra.notification.updated', 'ra.notification.deleted']);
        for (const key of keys(englishMessages)) {
            const zh = get(zhCN, key);
            const bare = zh.replace(/%\{\w+\}/g, '').replace(/[\s\-#:]/g, '');
            if (key !== 'ra.boolean.null') expect(bare === '' || hasCjk.test(zh), `${key}: ${zh}`).toBe(true);
            const forms = get(englishMessages, key).split('||||');
            const vars = forms[forms.length - 1].match(/%\{\w+\}/g) ?? [];
            for (const v of vars) if (!countless.has(key)) expect(zh, key).toContain(v);
        }
    });

    it('translate through polyglot in zh-CN, counts included', () => {
        expect(i18nProvider.getLocale()).toBe('zh-CN');
        expect(i18nProvider.translate('ra.action.save')).toBe('保存');
        expect(i18nProvider.translate('ra.navigation.page_rows_per_page')).toBe('每页行数:');
        expect(
            i18nProvider.translate('ra.navigation.page_range_info', { offsetBegin: 1, offsetEnd: 10, total: 31 }),
        ).toBe('1-10 共 31 条');
        expect(i18nProvider.translate('ra.action.bulk_actions', { smart_count: 3 })).toBe('已选择 3 项');
        expect(i18nProvider.translate('ra.action.bulk_actions', { smart_count: 1 })).toBe('已选择 1 项');
        expect(i18nProvider.translate('ra.message.delete_content', { name: '产品' })).toBe('确认删除 产品?');
        expect(i18nProvider.translate('ra.notification.created', { smart_count: 1 })).toBe('添加成功');
    });
});

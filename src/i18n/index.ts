import polyglotI18nProvider from 'ra-i18n-polyglot';
import zhCN from './zhCN';

export { zhCN };

/** The console speaks zh-CN only; an unknown key shows as itself rather than failing. */
export const i18nProvider = polyglotI18nProvider(() => zhCN, 'zh-CN', [{ locale: 'zh-CN', name: '简体中文' }], {
    allowMissing: true,
});

export default i18nProvider;

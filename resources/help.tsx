import AltRouteIcon from '@mui/icons-material/AltRoute';
import HelpOutlineIcon from '@mui/icons-material/HelpOutline';
import MenuBookIcon from '@mui/icons-material/MenuBook';
import QuizIcon from '@mui/icons-material/Quiz';
import SensorsIcon from '@mui/icons-material/Sensors';
import SupportAgentIcon from '@mui/icons-material/SupportAgent';
import TipsAndUpdatesIcon from '@mui/icons-material/TipsAndUpdates';
import { defineResource } from '../src/engine/types';
import type { PageSpec } from '../src/engine/vocabulary';

/**
 * The help pages (SPEC.md "Static help pages"): Markdown kept in docs/help/, each loaded when its page opens. Every
 * command and code sample marked `test` in them is run against a started platform by tests/server/helpSamples.test.ts
 * (the AMQP ones by helpAmqpSamples.test.ts, the 数据流转 page's `forward-test` ones by helpForwardSamples.test.ts), so
 * the manual cannot drift from the product.
 */
const page = (path: string, title: string, load: () => Promise<{ default: string }>): PageSpec => ({
    path,
    title,
    crumb: title,
    sections: [{ kind: 'markdown', title, load }],
});

export default defineResource({
    name: 'help',
    label: '帮助中心',
    hidden: true,
    menu: [
        { label: '用户手册', to: '/usermanual', section: '帮助中心', order: 1, icon: MenuBookIcon },
        { label: '数据采集', to: '/datacollection', section: '帮助中心', order: 2, icon: SensorsIcon },
        { label: '数据流转', to: '/dataforwarding', section: '帮助中心', order: 3, icon: AltRouteIcon },
        { label: '最佳实践', to: '/bestpractice', section: '帮助中心', order: 4, icon: TipsAndUpdatesIcon },
        { label: '常见问题', to: '/commonproblem', section: '帮助中心', order: 5, icon: QuizIcon },
        { label: '客户服务', to: '/customerservice', section: '帮助中心', order: 6, icon: SupportAgentIcon },
    ],
    icon: HelpOutlineIcon,
    fields: {},
    views: { list: false, show: false, edit: false, create: false },
    pages: [
        page('/usermanual', '用户手册', () => import('../docs/help/usermanual.md?raw')),
        page('/datacollection', '数据采集', () => import('../docs/help/datacollection.md?raw')),
        page('/dataforwarding', '数据流转', () => import('../docs/help/dataforwarding.md?raw')),
        page('/bestpractice', '最佳实践', () => import('../docs/help/bestpractice.md?raw')),
        page('/commonproblem', '常见问题', () => import('../docs/help/commonproblem.md?raw')),
        page('/customerservice', '客户服务', () => import('../docs/help/customerservice.md?raw')),
    ],
});

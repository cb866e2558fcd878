import HistoryIcon from '@mui/icons-material/History';
import { defineResource } from '../src/engine/types';
import { productLogSchema } from '../schemas/productLog';

/** The product update log (SPEC.md "Other pages"; docs/platform-api.md "Product log (ms3)"). */
export default defineResource({
    name: 'productLogs',
    rightFamily: 'productLog',
    label: '产品更新日志',
    menu: { label: '产品更新日志', order: 40, icon: HistoryIcon },
    icon: HistoryIcon,
    path: 'productLog',
    fields: {
        opTime: { label: '日期', type: 'datetime', format: 'YYYY-MM-DD HH:mm:ss', readOnly: true },
        log: {
            label: '内容',
            type: 'longText',
            required: true,
            maxLength: 2000,
            views: ['list', 'create'],
        },
    },
    schema: productLogSchema,
    list: {
        perPage: 10,
        perPageOptions: [10, 20, 30, 40],
        show: false,
        edit: false,
        deleteConfirm: '是否删除此日志?',
        createInDialog: true,
        createLabel: '新增日志',
        createTitle: '新增产品更新日志',
    },
    messages: { created: '新增成功', deleted: '删除成功' },
    api: {
        success: 'code200',
        getList: {
            post: '/ms3/productLog/find',
            body: 'form',
            paging: ['page', 'size'],
            read: 'data.records',
            total: 'data.total',
        },
        create: { post: '/ms3/productLog/save', params: (r) => ({ log: r.log }), read: 'data' },
        delete: { post: '/ms3/productLog/delete', params: (r) => ({ id: r.id }) },
    },
});

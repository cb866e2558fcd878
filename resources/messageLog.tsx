import ManageSearchIcon from '@mui/icons-material/ManageSearch';
import { defineResource, type Action, type Row } from '../src/engine/types';
import type { FilterSpec, ListSpec } from '../src/engine/vocabulary';

/**
 * The message log /log (SPEC.md "Log query (/log)"; docs/platform-api.md "Message log"): pick a product (searchable,
 * loaded on entering, the one whose devices reported last chosen), then its uplink, downlink or alert messages in tabs (?tab=), each a paged
 * list filtered by device name, time range and message id, all kept in the URL. 查看 shows a message's payload.
 * Status changes (online/offline) are uplink's 消息类型 上下线, so they do not drown the data messages.
 */

/** What a logged method means, in words (the method itself stays beside it). */
export function methodName(method: string): string {
    const reply = method.endsWith('_reply');
    const base = reply ? method.slice(0, -'_reply'.length) : method;
    let name: string;
    if (base === 'thing.event.property.post') name = '属性上报';
    else if (base === 'thing.service.property.set') name = '属性设置';
    else if (/^thing\.event\.[^.]+\.post$/.test(base)) name = `事件上报 ${base.split('.')[2]}`;
    else if (/^thing\.service\.[^.]+$/.test(base)) name = `服务调用 ${base.split('.')[2]}`;
    else if (base === 'user.message') name = '自定义Topic';
    else if (base === 'thing.model.up_raw') name = '透传数据';
    else if (base === 'device.status') name = '上下线';
    else name = base;
    return reply ? `${name}应答` : name;
}

/** The page's filters; every list shares their URL params, so switching tabs keeps the product and filters. */
const filters: FilterSpec[] = [
    {
        source: 'productKey',
        label: '产品',
        input: 'select',
        searchable: true,
        required: true,
        param: 'productKey',
        // The products whose devices reported last come first: the page opens on one with messages.
        choicesFrom: {
            call: 'listAll',
            resource: 'products',
            params: () => ({ orderBy: 'active' }),
            optionValue: 'productKey',
            optionText: 'productName',
        },
    },
    { source: 'deviceName', label: '设备名称', param: 'deviceName' },
    { source: 'messageId', label: '消息ID', param: 'messageId' },
    { source: 'startTime', to: 'endTime', label: '时间', input: 'dateRange', param: 'startTime', toParam: 'endTime' },
];

const view: Action = {
    kind: 'widget',
    label: '查看',
    title: ({ record }) => `消息内容（${String(record.messageId ?? '')}）`,
    widget: 'jsonView',
    props: ({ record }) => ({ text: record.payload, caption: record.topic }),
    width: 'md',
    closeLabel: '关闭',
};

const columns: ListSpec['columns'] = ['time', 'messageId', 'deviceName', 'method', 'topic'];

const messages = (direction: 'up' | 'down'): ListSpec => ({
    source: {
        call: 'messages',
        params: direction === 'down' ? () => ({ direction: 'down' }) : undefined,
    },
    columns,
    urlPrefix: direction,
    perPage: 10,
    perPageOptions: [10, 20, 50],
    filters:
        direction === 'up'
            ? [
                  filters[0],
                  {
                      source: 'direction',
                      label: '消息类型',
                      input: 'select',
                      choices: [
                          { id: 'up', name: '设备上报' },
                          { id: 'status', name: '上下线' },
                      ],
                      allLabel: false,
                      defaultValue: 'up',
                      param: 'kind',
                  },
                  ...filters.slice(1),
              ]
            : filters,
    rowActions: [view],
    empty: { text: direction === 'up' ? '暂无上行消息' : '暂无下行消息' },
});

export default defineResource({
    name: 'messageLog',
    label: '日志查询',
    path: 'log',
    icon: ManageSearchIcon,
    menu: { label: '日志查询', section: '监控运维', order: 5, icon: ManageSearchIcon, to: '/log' },
    views: { list: false, show: false, edit: false, create: false },
    fields: {
        time: { label: '时间', type: 'datetime' },
        messageId: { label: '消息ID' },
        deviceName: { label: '设备名称' },
        method: { label: '消息类型', render: (r: Row) => methodName(String(r.method ?? '')) },
        topic: { label: 'Topic' },
        appName: { label: '应用名称' },
        noticeType: { label: '通知类型' },
        messageType: { label: '消息类型' },
        recipient: { label: '接收人' },
        content: { label: '内容' },
    },
    pages: [
        {
            path: '/log',
            title: '日志查询',
            back: { label: '概览', to: '/introduce' },
            tabParam: { query: 'tab' },
            tabs: [
                { key: 'up', label: '上行消息', sections: [{ kind: 'list', list: messages('up') }] },
                { key: 'down', label: '下行消息', sections: [{ kind: 'list', list: messages('down') }] },
                {
                    key: 'alert',
                    label: '告警消息',
                    sections: [
                        {
                            kind: 'list',
                            list: {
                                source: { call: 'alerts' },
                                columns: ['appName', 'noticeType', 'messageType', 'recipient', 'content', 'time'],
                                urlPrefix: 'alert',
                                perPage: 10,
                                rowActions: [
                                    {
                                        kind: 'widget',
                                        label: '查看',
                                        title: '告警内容',
                                        widget: 'jsonView',
                                        props: ({ record }) => ({ text: record.content }),
                                        closeLabel: '关闭',
                                    },
                                ],
                                empty: { text: '暂无告警消息：告警规则发送的通知显示在这里' },
                            },
                        },
                    ],
                },
            ],
        },
    ],
    api: {
        success: 'code0',
        custom: {
            messages: {
                get: '/api/log/messages',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
            alerts: {
                get: '/api/log/alerts',
                paging: ['pageNumber', 'pageSize'],
                read: 'data.records',
                total: 'data.total',
            },
        },
    },
});

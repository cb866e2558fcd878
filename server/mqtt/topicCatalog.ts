/**
 * The topics of a device, in Alibaba Cloud IoT's layout, by class: what the console's Topic tabs list and what the
 * broker enforces (server/mqtt/broker.ts). `发布` means the device publishes, `订阅` that it subscribes.
 */
export type Permission = '发布' | '订阅' | '发布和订阅';

export interface TopicRow {
    name: string;
    topic: string;
    permission: Permission;
    description: string;
}

export function basicTopics(pk: string, dn: string): TopicRow[] {
    return [
        {
            name: '配置推送',
            topic: `/sys/${pk}/${dn}/thing/config/push`,
            permission: '订阅',
            description: '云端主动下推配置信息',
        },
        {
            name: '配置推送响应',
            topic: `/sys/${pk}/${dn}/thing/config/push_reply`,
            permission: '发布',
            description: '设备端响应配置推送',
        },
        {
            name: '配置获取',
            topic: `/sys/${pk}/${dn}/thing/config/get`,
            permission: '发布',
            description: '设备端查询配置信息',
        },
        {
            name: '配置获取响应',
            topic: `/sys/${pk}/${dn}/thing/config/get_reply`,
            permission: '订阅',
            description: '云端响应配置信息',
        },
        {
            name: '设备标签上报',
            topic: `/sys/${pk}/${dn}/thing/deviceinfo/update`,
            permission: '发布',
            description: '设备上报标签信息',
        },
        {
            name: '设备标签上报响应',
            topic: `/sys/${pk}/${dn}/thing/deviceinfo/update_reply`,
            permission: '订阅',
            description: '云端响应标签上报',
        },
        {
            name: '设备标签删除',
            topic: `/sys/${pk}/${dn}/thing/deviceinfo/delete`,
            permission: '发布',
            description: '设备删除标签信息',
        },
        {
            name: '设备标签删除响应',
            topic: `/sys/${pk}/${dn}/thing/deviceinfo/delete_reply`,
            permission: '订阅',
            description: '云端响应标签删除',
        },
        {
            name: '固件版本上报',
            topic: `/ota/device/inform/${pk}/${dn}`,
            permission: '发布',
            description: '设备上报固件升级信息',
        },
        {
            name: '固件升级',
            topic: `/ota/device/upgrade/${pk}/${dn}`,
            permission: '订阅',
            description: '固件升级信息下行',
        },
        {
            name: '固件升级进度上报',
            topic: `/ota/device/progress/${pk}/${dn}`,
            permission: '发布',
            description: '设备上报固件升级进度',
        },
        {
            name: '固件升级包查询',
            topic: `/sys/${pk}/${dn}/thing/ota/firmware/get`,
            permission: '发布',
            description: '设备请求待升级的固件',
        },
        {
            name: '固件升级包查询响应',
            topic: `/sys/${pk}/${dn}/thing/ota/firmware/get_reply`,
            permission: '订阅',
            description: '云端响应待升级的固件',
        },
        {
            name: '设备影子发布',
            topic: `/shadow/update/${pk}/${dn}`,
            permission: '发布',
            description: '设备上报、获取或删除设备影子',
        },
        {
            name: '设备影子订阅',
            topic: `/shadow/get/${pk}/${dn}`,
            permission: '订阅',
            description: '设备接收影子变更与应答',
        },
        {
            name: 'NTP 时钟同步请求',
            topic: `/ext/ntp/${pk}/${dn}/request`,
            permission: '发布',
            description: 'NTP 时钟同步请求',
        },
        {
            name: 'NTP 时钟同步响应',
            topic: `/ext/ntp/${pk}/${dn}/response`,
            permission: '订阅',
            description: 'NTP 时钟同步响应',
        },
        {
            name: 'RRPC 同步调用请求',
            topic: `/sys/${pk}/${dn}/rrpc/request/+`,
            permission: '订阅',
            description: '云端同步调用设备（同步服务、RRPC），+ 为消息 ID',
        },
        {
            name: 'RRPC 同步调用响应',
            topic: `/sys/${pk}/${dn}/rrpc/response/+`,
            permission: '发布',
            description: '设备应答同步调用，+ 为请求的消息 ID',
        },
    ];
}

export function thingModelTopics(pk: string, dn: string, events: string[], services: string[]): TopicRow[] {
    const base = `/sys/${pk}/${dn}/thing`;
    return [
        { name: '属性上报', topic: `${base}/event/property/post`, permission: '发布', description: '设备属性上报' },
        {
            name: '属性上报响应',
            topic: `${base}/event/property/post_reply`,
            permission: '订阅',
            description: '云端响应属性上报',
        },
        { name: '属性设置', topic: `${base}/service/property/set`, permission: '订阅', description: '设备属性设置' },
        {
            name: '属性设置响应',
            topic: `${base}/service/property/set_reply`,
            permission: '发布',
            description: '设备端响应属性设置',
        },
        {
            name: '批量上报属性和事件',
            topic: `${base}/event/property/batch/post`,
            permission: '发布',
            description: '设备按各自的时间批量上报属性和事件',
        },
        {
            name: '批量上报响应',
            topic: `${base}/event/property/batch/post_reply`,
            permission: '订阅',
            description: '云端响应批量上报',
        },
        {
            name: '物模型历史数据上报',
            topic: `${base}/event/property/history/post`,
            permission: '发布',
            description: '设备（或网关代子设备）上报历史属性和事件',
        },
        {
            name: '物模型历史数据上报响应',
            topic: `${base}/event/property/history/post_reply`,
            permission: '订阅',
            description: '云端响应历史数据上报',
        },
        ...events.flatMap((id): TopicRow[] => [
            {
                name: `事件上报（${id}）`,
                topic: `${base}/event/${id}/post`,
                permission: '发布',
                description: '设备事件上报',
            },
            {
                name: `事件上报响应（${id}）`,
                topic: `${base}/event/${id}/post_reply`,
                permission: '订阅',
                description: '云端响应事件上报',
            },
        ]),
        ...services.flatMap((id): TopicRow[] => [
            {
                name: `服务调用（${id}）`,
                topic: `${base}/service/${id}`,
                permission: '订阅',
                description: '设备服务调用',
            },
            {
                name: `服务调用响应（${id}）`,
                topic: `${base}/service/${id}_reply`,
                permission: '发布',
                description: '设备端响应服务调用',
            },
        ]),
    ];
}

/** A passthrough product's (data type 1) raw topics. */
export function rawTopics(pk: string, dn: string): TopicRow[] {
    const base = `/sys/${pk}/${dn}/thing/model`;
    return [
        { name: '透传数据上报', topic: `${base}/up_raw`, permission: '发布', description: '设备上报透传数据' },
        {
            name: '透传数据上报响应',
            topic: `${base}/up_raw_reply`,
            permission: '订阅',
            description: '云端响应透传数据',
        },
        { name: '透传数据下发', topic: `${base}/down_raw`, permission: '订阅', description: '云端下发透传数据' },
        {
            name: '透传数据下发响应',
            topic: `${base}/down_raw_reply`,
            permission: '发布',
            description: '设备端响应透传数据',
        },
    ];
}

/**
 * Custom topics: the three every device has, the whole `user` space, which the device may use freely, and custom
 * RRPC around it (the device subscribes `/ext/rrpc/+/{pk}/{dn}/user/...` and answers on the request's own topic).
 */
export function customTopics(pk: string, dn: string): TopicRow[] {
    return [
        {
            name: '自定义上报',
            topic: `/${pk}/${dn}/user/update`,
            permission: '发布',
            description: '设备上报自定义数据',
        },
        {
            name: '自定义上报错误',
            topic: `/${pk}/${dn}/user/update/error`,
            permission: '发布',
            description: '设备上报错误',
        },
        { name: '自定义下发', topic: `/${pk}/${dn}/user/get`, permission: '订阅', description: '设备获取自定义数据' },
        {
            name: '自定义Topic',
            topic: `/${pk}/${dn}/user/#`,
            permission: '发布和订阅',
            description: 'user 下的任意自定义 Topic',
        },
        {
            name: '自定义 Topic 的 RRPC',
            topic: `/ext/rrpc/+/${pk}/${dn}/user/#`,
            permission: '发布和订阅',
            description: '云端经自定义 Topic 同步调用设备，设备在同一 Topic 上应答；+ 为消息 ID',
        },
    ];
}

/** A gateway's sessions of its sub-devices (combine login) and its topology (Alibaba's topo, found and sub-register). */
export function gatewayTopics(pk: string, dn: string): TopicRow[] {
    const base = `/ext/session/${pk}/${dn}/combine`;
    const thing = `/sys/${pk}/${dn}/thing`;
    const row = (name: string, topic: string, permission: Permission, description: string): TopicRow => ({
        name,
        topic,
        permission,
        description,
    });
    return [
        row('子设备上线', `${base}/login`, '发布', '网关代理子设备上线'),
        row('子设备上线响应', `${base}/login_reply`, '订阅', '云端响应子设备上线'),
        row('子设备下线', `${base}/logout`, '发布', '网关代理子设备下线'),
        row('子设备下线响应', `${base}/logout_reply`, '订阅', '云端响应子设备下线'),
        row('添加拓扑关系', `${thing}/topo/add`, '发布', '网关添加与子设备的拓扑关系（子设备签名）'),
        row('添加拓扑关系响应', `${thing}/topo/add_reply`, '订阅', '云端响应添加拓扑关系'),
        row('删除拓扑关系', `${thing}/topo/delete`, '发布', '网关删除与子设备的拓扑关系'),
        row('删除拓扑关系响应', `${thing}/topo/delete_reply`, '订阅', '云端响应删除拓扑关系'),
        row('获取拓扑关系', `${thing}/topo/get`, '发布', '网关查询自己的子设备'),
        row('获取拓扑关系响应', `${thing}/topo/get_reply`, '订阅', '云端返回网关的子设备列表'),
        row('拓扑关系变化通知', `${thing}/topo/change`, '订阅', '云端通知网关子设备被添加或移除'),
        row('拓扑关系变化通知响应', `${thing}/topo/change_reply`, '发布', '网关响应拓扑关系变化通知'),
        row('发现设备列表上报', `${thing}/list/found`, '发布', '网关上报发现的子设备，待控制台添加'),
        row('发现设备列表上报响应', `${thing}/list/found_reply`, '订阅', '云端响应发现设备列表上报'),
        row('子设备动态注册', `${thing}/sub/register`, '发布', '网关为子设备动态注册，获取其 DeviceSecret'),
        row('子设备动态注册响应', `${thing}/sub/register_reply`, '订阅', '云端返回子设备的 DeviceSecret'),
    ];
}

export interface TopicClass {
    name: '基础通信Topic' | '物模型通信Topic' | '自定义Topic' | '网关通信Topic';
    topics: TopicRow[];
}

/** Every topic class of a device of this product, as the console lists them and the broker enforces them. */
export function topicClasses(
    product: { productKey: string; nodeType: number; passthrough: boolean },
    deviceName: string,
    events: string[],
    services: string[],
): TopicClass[] {
    const pk = product.productKey;
    return [
        { name: '基础通信Topic', topics: basicTopics(pk, deviceName) },
        {
            name: '物模型通信Topic',
            topics: [
                ...thingModelTopics(pk, deviceName, events, services),
                ...(product.passthrough ? rawTopics(pk, deviceName) : []),
            ],
        },
        { name: '自定义Topic', topics: customTopics(pk, deviceName) },
        ...(product.nodeType === 1 ? [{ name: '网关通信Topic' as const, topics: gatewayTopics(pk, deviceName) }] : []),
    ];
}

/** MQTT filter matching (`+` one level, `#` the rest). */
export function filterMatches(filter: string, topic: string): boolean {
    const f = filter.split('/');
    const t = topic.split('/');
    for (let i = 0; i < f.length; i++) {
        if (f[i] === '#') return true;
        if (i >= t.length) return false;
        if (f[i] !== '+' && f[i] !== t[i]) return false;
    }
    return f.length === t.length;
}

/** Whether a device may publish on `topic`: a listed topic it publishes on, or one inside its custom space. */
export function mayPublish(classes: TopicClass[], topic: string): boolean {
    return classes.some((c) => c.topics.some((r) => r.permission !== '订阅' && filterMatches(r.topic, topic)));
}

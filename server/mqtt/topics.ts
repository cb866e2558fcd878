/**
 * The spaces of a device's topics (Alibaba Cloud IoT's layout): `/sys/{pk}/{dn}/...`, `/{pk}/{dn}/user/...`,
 * `/ext/session/{pk}/{dn}/...`, `/ext/ntp/{pk}/{dn}/...` and its two firmware topics. A device subscribes to filters
 * inside its spaces; what it may publish is narrower: the topics of topicCatalog.ts marked 发布 (mayPublish). A
 * gateway may also use the spaces of the sub-devices signed in through it.
 */

export interface TopicOwner {
    productKey: string;
    deviceName: string;
}

export function topicPrefixes({ productKey: pk, deviceName: dn }: TopicOwner): string[] {
    return [`/sys/${pk}/${dn}/`, `/${pk}/${dn}/user/`, `/ext/session/${pk}/${dn}/`, `/ext/ntp/${pk}/${dn}/`];
}

/** Single topics outside those spaces (firmware). */
function singleTopics({ productKey: pk, deviceName: dn }: TopicOwner): string[] {
    return [`/ota/device/upgrade/${pk}/${dn}`, `/ota/device/inform/${pk}/${dn}`];
}

/** Whether `topic` (a publish topic or a subscription filter) stays inside one of the owners' prefixes. */
export function topicAllowed(topic: string, owners: TopicOwner[]): boolean {
    if (topic.includes('\u0000')) return false;
    return owners.some(
        (o) => topicPrefixes(o).some((prefix) => topic.startsWith(prefix)) || singleTopics(o).includes(topic),
    );
}

/** `/sys/{pk}/{dn}/thing/...`: the owner and the rest, or undefined. */
export function parseSysTopic(topic: string): { productKey: string; deviceName: string; rest: string } | undefined {
    const m = /^\/sys\/([^/]+)\/([^/]+)\/(.+)$/.exec(topic);
    return m ? { productKey: m[1], deviceName: m[2], rest: m[3] } : undefined;
}

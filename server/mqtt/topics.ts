/**
 * The topics a device may use (Alibaba Cloud IoT's layout): its system topics `/sys/{pk}/{dn}/...`, its custom
 * topics `/{pk}/{dn}/user/...` and its gateway session topics `/ext/session/{pk}/{dn}/...`. A gateway may also use
 * its sub-devices' topics. The product and device Topic tabs of the console list exactly these classes.
 */

export interface TopicOwner {
    productKey: string;
    deviceName: string;
}

export function topicPrefixes({ productKey: pk, deviceName: dn }: TopicOwner): string[] {
    return [`/sys/${pk}/${dn}/`, `/${pk}/${dn}/user/`, `/ext/session/${pk}/${dn}/`];
}

/** Whether `topic` (a publish topic or a subscription filter) stays inside one of the owners' prefixes. */
export function topicAllowed(topic: string, owners: TopicOwner[]): boolean {
    if (topic.includes('\u0000')) return false;
    return owners.some((o) => topicPrefixes(o).some((prefix) => topic.startsWith(prefix)));
}

/** `/sys/{pk}/{dn}/thing/...`: the owner and the rest, or undefined. */
export function parseSysTopic(topic: string): { productKey: string; deviceName: string; rest: string } | undefined {
    const m = /^\/sys\/([^/]+)\/([^/]+)\/(.+)$/.exec(topic);
    return m ? { productKey: m[1], deviceName: m[2], rest: m[3] } : undefined;
}

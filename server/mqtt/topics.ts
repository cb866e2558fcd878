/**
 * The spaces of a device's topics (Alibaba Cloud IoT's layout): `/sys/{pk}/{dn}/...`, `/{pk}/{dn}/user/...`,
 * `/ext/session/{pk}/{dn}/...`, `/ext/ntp/{pk}/{dn}/...`, its firmware topics, its two shadow topics, and custom RRPC
 * `/ext/rrpc/{messageId}{topic}` around a topic of those spaces. A device subscribes to filters inside its spaces; what
 * it may publish is narrower: the topics of topicCatalog.ts marked 发布 (mayPublish). A gateway may also use the
 * spaces of the sub-devices signed in through it.
 */

export interface TopicOwner {
    productKey: string;
    deviceName: string;
}

export function topicPrefixes({ productKey: pk, deviceName: dn }: TopicOwner): string[] {
    return [`/sys/${pk}/${dn}/`, `/${pk}/${dn}/user/`, `/ext/session/${pk}/${dn}/`, `/ext/ntp/${pk}/${dn}/`];
}

/** Single topics outside those spaces (firmware, device shadow). */
function singleTopics({ productKey: pk, deviceName: dn }: TopicOwner): string[] {
    return [
        `/ota/device/upgrade/${pk}/${dn}`,
        `/ota/device/inform/${pk}/${dn}`,
        `/ota/device/progress/${pk}/${dn}`,
        `/shadow/update/${pk}/${dn}`,
        `/shadow/get/${pk}/${dn}`,
    ];
}

/**
 * A device's spaces, made once per owner object (the directory's entry of a connected device, which a rename replaces
 * rather than changes) instead of on every message it publishes.
 */
const spacesOf = new WeakMap<
    TopicOwner,
    { prefixes: string[]; singles: string[]; propertyPost: string; propertyPostReply: string }
>();
function spaces(o: TopicOwner) {
    let hit = spacesOf.get(o);
    if (!hit) {
        const propertyPost = `/sys/${o.productKey}/${o.deviceName}/thing/event/property/post`;
        const propertyPostReply = `${propertyPost}_reply`;
        spacesOf.set(
            o,
            (hit = { prefixes: topicPrefixes(o), singles: singleTopics(o), propertyPost, propertyPostReply }),
        );
    }
    return hit;
}

/** `/sys/{pk}/{dn}/thing/event/property/post` of the owner: the topic of most messages. */
export function propertyPostTopic(o: TopicOwner): string {
    return spaces(o).propertyPost;
}

/** `/sys/{pk}/{dn}/thing/event/property/post_reply`: where the platform answers the property post. */
export function propertyPostReplyTopic(o: TopicOwner): string {
    return spaces(o).propertyPostReply;
}

/** Whether `topic` (a publish topic or a subscription filter) stays inside one of the owners' prefixes. */
export function topicAllowed(topic: string, owners: TopicOwner[]): boolean {
    if (topic.includes('\u0000')) return false;
    return owners.some((o) => ownerAllows(topic, o));
}

/** Whether `topic` stays inside the owner's spaces. */
export function ownerAllows(topic: string, o: TopicOwner): boolean {
    if (topic.includes('\u0000')) return false;
    const { prefixes, singles } = spaces(o);
    for (const prefix of prefixes) if (topic.startsWith(prefix)) return true;
    if (singles.includes(topic)) return true;
    const rrpc = parseExtRrpc(topic);
    return (
        rrpc !== undefined &&
        rrpc.messageId !== '#' &&
        !rrpc.topic.startsWith(EXT_RRPC_PREFIX) &&
        ownerAllows(rrpc.topic, o)
    );
}

export const EXT_RRPC_PREFIX = '/ext/rrpc/';

/**
 * Alibaba's custom RRPC `/ext/rrpc/{messageId}{topic}` (the topic keeps its leading slash: `/ext/rrpc/1/{pk}/{dn}/user/get`;
 * a device subscribes `/ext/rrpc/+{topic}`): its message id and the topic inside, or undefined.
 */
export function parseExtRrpc(topic: string): { messageId: string; topic: string } | undefined {
    if (!topic.startsWith(EXT_RRPC_PREFIX)) return undefined;
    const slash = topic.indexOf('/', EXT_RRPC_PREFIX.length);
    if (slash <= EXT_RRPC_PREFIX.length) return undefined;
    return { messageId: topic.slice(EXT_RRPC_PREFIX.length, slash), topic: topic.slice(slash) };
}

/** `/sys/{pk}/{dn}/thing/...`: the owner and the rest, or undefined. */
export function parseSysTopic(topic: string): { productKey: string; deviceName: string; rest: string } | undefined {
    const m = /^\/sys\/([^/]+)\/([^/]+)\/(.+)$/.exec(topic);
    return m ? { productKey: m[1], deviceName: m[2], rest: m[3] } : undefined;
}

/**
 * MQTT topic filters as a flow's FROM writes them: '+' matches exactly one level (an empty one too), '#' the rest of
 * the topic including its parent level ('a/#' matches 'a'), and only as the last level. As MQTT says, a wildcard at
 * the first level does not match a topic that starts with '$' (the broker's own topics).
 *
 * A device's topic '/sys/{productKey}/{deviceName}/…' is also matched in the form Alibaba's 云产品流转 writes in FROM,
 * without '/sys' ('/{productKey}/{deviceName}/thing/event/property/post'), so a flow copied from Alibaba selects the
 * same messages here; topic() still answers the device's topic.
 */

/** Why `filter` is not a valid topic filter, or undefined when it is. */
export function topicFilterProblem(filter: string): string | undefined {
    if (filter === '') return '主题过滤器不能为空';
    const levels = filter.split('/');
    for (let i = 0; i < levels.length; i++) {
        const level = levels[i];
        if (level.includes('#') && (level !== '#' || i !== levels.length - 1))
            return '主题过滤器不合法：# 只能是最后一级';
        if (level.includes('+') && level !== '+') return '主题过滤器不合法：+ 必须独占一级';
    }
    return undefined;
}

/** A matcher of topics for one filter, split once: `run` asks it for every message. */
export function topicMatcher(filter: string): (topic: string) => boolean {
    if (topicFilterProblem(filter)) return () => false;
    const levels = filter.split('/');
    if (!filter.includes('+') && !filter.includes('#'))
        return (topic) =>
            topic === filter || (topic.startsWith(SYS) && topic.length - 4 === filter.length && topic.endsWith(filter));
    return (topic) => matchLevels(levels, topic) || (topic.startsWith(SYS) && matchLevels(levels, topic.slice(4)));
}

/** The prefix of a device's own topics, which Alibaba's forwarding topics leave out. */
const SYS = '/sys/';

/** Whether `topic` (or its Alibaba forwarding form) matches the MQTT filter `filter`; an invalid filter matches nothing. */
export function topicMatches(filter: string, topic: string): boolean {
    return topicMatcher(filter)(topic);
}

/** Walks the topic's levels in place (no split per message: `run` asks this for every message). */
function matchLevels(filter: readonly string[], topic: string): boolean {
    if (topic.startsWith('$') && (filter[0] === '+' || filter[0] === '#')) return false;
    let start = 0;
    for (const wanted of filter) {
        if (wanted === '#') return true;
        if (start > topic.length) return false;
        const slash = topic.indexOf('/', start);
        const end = slash === -1 ? topic.length : slash;
        if (wanted !== '+' && (end - start !== wanted.length || !topic.startsWith(wanted, start))) return false;
        start = end + 1;
    }
    return start === topic.length + 1;
}

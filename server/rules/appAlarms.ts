import { and, asc, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { appAlarms, apps, notifications, notifyChannels } from '../db/schema';
import { fillTemplate } from './evaluate';
import { NOTIFY_TYPE_NAMES, type Channel, type Notifier } from './notify';

/**
 * App alarms (/applymanage 添加告警): when an alert rule raises an alert, every alarm of that level of an app that is
 * published and in use (使用中) is sent through the rules' notifier (webhook, DingTalk, WeCom robot, e-mail; retries
 * and attempts recorded in /log's 告警消息 tab, under the app's name). E-mail goes through the SMTP server of the
 * first e-mail 通知方式 of the alert rules; without one, the notification is recorded as failed and says so.
 */

export interface RaisedAlert {
    alertId: number;
    level: number;
    productKey: string;
    deviceName: string;
    /** The alert's text (the rule's content, filled). */
    content: string;
    /** The rule's template variables (deviceName, level, time, values...). */
    vars: Record<string, unknown>;
}

export const NO_SMTP = '未配置邮件通知方式（SMTP）：请先在告警规则中添加一个邮件通知方式';

async function smtpChannel(db: Db): Promise<Channel | undefined> {
    const [c] = await db
        .select()
        .from(notifyChannels)
        .where(eq(notifyChannels.type, 'email'))
        .orderBy(asc(notifyChannels.id))
        .limit(1);
    return c ? { id: c.id, name: c.name, type: 'email', config: c.config as Record<string, unknown> } : undefined;
}

/** Sends the app alarms the alert matches; answers how many were submitted. */
export async function notifyAppAlarms(db: Db, notifier: Notifier, alert: RaisedAlert): Promise<number> {
    const rows = await db
        .select({ alarm: appAlarms, appName: apps.name })
        .from(appAlarms)
        .innerJoin(apps, eq(apps.id, appAlarms.appId))
        .where(and(eq(appAlarms.level, alert.level), eq(apps.useStatus, 1), eq(apps.publishStatus, 1)))
        .orderBy(asc(appAlarms.id));
    let sent = 0;
    for (const { alarm, appName } of rows) {
        const vars = { ...alert.vars, appName, alarmName: alarm.name, content: alert.content };
        const content = alarm.content ? fillTemplate(alarm.content, vars) : `【${appName}】${alert.content}`;
        const common = {
            ruleId: null,
            alertId: alert.alertId,
            appName,
            messageType: '告警通知',
            productKey: alert.productKey,
            deviceName: alert.deviceName,
            content,
            vars: { ...vars, content, ruleName: alarm.name },
        };
        let channel: Channel | undefined;
        if (alarm.notifyType === 'email') {
            const smtp = await smtpChannel(db);
            if (!smtp) {
                await db.insert(notifications).values({
                    ...common,
                    channelId: null,
                    notifyType: NOTIFY_TYPE_NAMES.email,
                    recipient: alarm.receiver,
                    status: 'failed',
                    attempts: [{ attempt: 1, time: new Date().toISOString(), ok: false, error: NO_SMTP }],
                });
                continue;
            }
            channel = { ...smtp, config: { ...smtp.config, to: alarm.receiver } };
        } else if (alarm.notifyType in NOTIFY_TYPE_NAMES) {
            channel = {
                id: null,
                name: alarm.name,
                type: alarm.notifyType as Channel['type'],
                config: { url: alarm.receiver },
            };
        } else continue; // a type this platform cannot send (短信 of older rows)
        await notifier.send({ ...common, channel });
        sent++;
    }
    return sent;
}

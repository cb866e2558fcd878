/** A rule as stored and answered (docs/rules.md): rows each carry an id, so one can be deleted alone. */

export type TriggerType = 'property' | 'event' | 'status' | 'schedule' | 'otaFailed';

export interface Trigger {
    id: string;
    type: TriggerType;
    /** property: one property ('' or absent: any property post); event: the event's identifier. */
    identifier?: string;
    /** status: online, offline or any. */
    status?: 'online' | 'offline' | 'any';
    /** schedule: a cron expression (5 or 6 fields, croner). */
    cron?: string;
    /** otaFailed: only upgrades of this firmware module ('' or absent: any module). */
    module?: string;
}

export type Operator = '>' | '>=' | '<' | '<=' | '==' | '!=' | 'between';

export interface Condition {
    id: string;
    /** property: the device's value of a property; event: a field of an event's output. */
    source: 'property' | 'event';
    identifier: string;
    /** event: the output field compared. */
    field?: string;
    operator: Operator;
    value: unknown;
    /** between: the upper bound. */
    value2?: unknown;
}

export type Action =
    | { id: string; type: 'setProperty'; productKey?: string; deviceName?: string; identifier: string; value: unknown }
    | {
          id: string;
          type: 'invokeService';
          productKey?: string;
          deviceName?: string;
          identifier: string;
          params: Record<string, unknown>;
      }
    | { id: string; type: 'alert'; level: 1 | 2 | 3; content: string }
    | {
          id: string;
          type: 'notify';
          channelId: number;
          content?: string;
          /** 恢复时通知: also notify when the conditions stop holding (the alert recovers). */
          onRecover?: boolean;
          /** The recovery notification's template (default: 「rule」device recovered, with the alert's content). */
          recoverContent?: string;
      };

export interface TimeWindow {
    start: string;
    end: string;
}

export interface RuleDefinition {
    name: string;
    type: 1 | 2;
    projectId: number | null;
    productId: number;
    deviceId: number | null;
    enabled: boolean;
    description: string | null;
    triggers: Trigger[];
    match: 'all' | 'any';
    conditions: Condition[];
    durationSeconds: number;
    timeWindow: TimeWindow | null;
    actions: Action[];
    autoClear: boolean;
}

export interface StoredRule extends RuleDefinition {
    id: number;
    productKey: string;
    productName: string;
    deviceName: string | null;
}

/** One action's outcome, as the journal keeps it. */
export interface ActionResult {
    type: Action['type'];
    ok: boolean;
    message: string;
}

import type { Context } from 'hono';
import type { AmqpService } from './amqp/service';
import type { ServerConfig } from './config';
import type { Db } from './db/client';
import type { Maintenance } from './db/maintenance';
import type { AccessHub } from './mqtt/access';
import type { OtaService } from './ota/service';
import type { RemoteConfigService } from './remoteConfig/service';
import type { ForwardService } from './forward/service';
import type { RuleEngine } from './rules/engine';
import type { Simulator } from './simulation/simulator';
import type { SessionUser } from './sso/sessions';
import type { PipeSource, VideoRelay } from './video/relay';

/** The GB/T 28181 SIP endpoint as the API shows it (server/video/sip.ts). */
export interface SipEndpoint {
    /** The address cameras register to (null: the request's host). */
    address(): string | null;
    /** The UDP port it listens on (null while not listening). */
    port(): number | null;
    /** Throws why a camera cannot be played now (not registered, no such channel). */
    playTarget?(deviceId: number, channelId?: string): Promise<unknown>;
    /** A camera's live video (INVITE / RTP) as a relay source. */
    play?(deviceId: number, channelId?: string): PipeSource;
}
import type { ThrottleOptions } from './sso/throttle';
import type { RightTable } from './rights/table';

export interface AppDeps {
    db: Db;
    config: ServerConfig;
    /** The clock for sessions and sign-in slowdown (tests move it forward). */
    now?: () => Date;
    /** The caller's address for per-address sign-in slowdown; defaults to the socket's remote address. */
    clientIp?: (c: Context) => string;
    throttle?: { username?: ThrottleOptions; ip?: ThrottleOptions };
    /** Where unexpected errors are reported (default console.error). */
    logError?: (message: string, err: unknown) => void;
    /** Table upkeep after bulk writes (default: createMaintenance over db). */
    maintenance?: Maintenance;
    /** Device access (the MQTT broker attaches to it); default: one with no broker. */
    access?: AccessHub;
    /** The rights of the operations (default: openapi.yaml's x-right, read once). */
    rightTable?: RightTable;
    /** The device simulator (its devices connect through `access`); default: one made here. */
    simulator?: Simulator;
    /** Server-side subscription delivery (AMQP 1.0); absent: the routes answer without live consumer figures. */
    amqp?: AmqpService;
    /** The rule engine (it listens to `access`'s broker); default: one made here (not attached: no broker messages). */
    rules?: RuleEngine;
    /** Live video relays (default: one writing under config.videoDir). */
    video?: VideoRelay;
    /** The SIP endpoint of gb28181 cameras, when listening. */
    sip?: SipEndpoint;
    /** OTA firmware upgrades (server/ota/service.ts); default: one made here over `access`. */
    ota?: OtaService;
    /** Remote configuration (server/remoteConfig/service.ts); default: one made here over `access`. */
    remoteConfig?: RemoteConfigService;
    /** Data forwarding (server/forward/service.ts); default: one made here (one process, not started). */
    forward?: ForwardService;
}

/** What every router receives: the deps with defaults filled in. */
export interface Services {
    db: Db;
    config: ServerConfig;
    now: () => Date;
    /** Absent in routers built outside createApp (tests): bulk writes then schedule no upkeep. */
    maintenance?: Maintenance;
    /** Device connections: disconnect, downlink, online (absent in routers built outside createApp). */
    access?: AccessHub;
    /** Simulated devices (/api/simulation). */
    simulator?: Simulator;
    /** Server-side subscription delivery: consumers, backlog, routes refresh. */
    amqp?: AmqpService;
    /** The rule engine: routes that change rules refresh it. */
    rules?: RuleEngine;
    video?: VideoRelay;
    sip?: SipEndpoint;
    ota?: OtaService;
    remoteConfig?: RemoteConfigService;
    /** Data forwarding (server/forward/service.ts); default: one made here (one process, not started). */
    forward?: ForwardService;
}

export type AppEnv = { Variables: { user: SessionUser; token: string } };

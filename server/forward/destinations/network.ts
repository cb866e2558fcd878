/**
 * What a connection failure means for the operator, in Chinese, from Node's error codes (the error itself, its
 * cause, or one of an AggregateError's errors: Node tries IPv4 and IPv6 addresses in turn). Every kind's sender
 * names its system and address with it: "无法连接 PostgreSQL 10.0.0.5:5432：连接被拒绝，……".
 */

const REASONS: Record<string, string> = {
    ECONNREFUSED: '连接被拒绝，请检查地址、端口是否正确，服务是否已启动',
    ENOTFOUND: '无法解析主机名，请检查主机地址',
    EAI_AGAIN: '域名解析暂时失败，请检查 DNS 配置',
    ETIMEDOUT: '连接超时，请检查网络、防火墙或安全组设置',
    ECONNRESET: '连接被对方重置，请检查服务状态或是否需要启用 SSL/TLS',
    EHOSTUNREACH: '主机不可达，请检查网络和路由',
    ENETUNREACH: '网络不可达，请检查网络配置',
    EPIPE: '连接已断开',
    UND_ERR_CONNECT_TIMEOUT: '连接超时，请检查网络、防火墙或安全组设置',
    UND_ERR_SOCKET: '连接异常断开',
    DEPTH_ZERO_SELF_SIGNED_CERT: '对方使用自签名证书，证书不受信任',
    SELF_SIGNED_CERT_IN_CHAIN: '对方证书链含自签名证书，证书不受信任',
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: '无法验证对方证书，证书不受信任',
    UNABLE_TO_GET_ISSUER_CERT_LOCALLY: '找不到对方证书的签发机构，证书不受信任',
    CERT_HAS_EXPIRED: '对方证书已过期',
    ERR_TLS_CERT_ALTNAME_INVALID: '对方证书与主机名不符',
    ERR_SSL_WRONG_VERSION_NUMBER: 'TLS 握手失败，对方可能未启用 SSL/TLS',
};

/** The first Node error code found in the error, its causes and aggregated errors. */
export function errorCode(error: unknown, depth = 0): string | undefined {
    if (!error || typeof error !== 'object' || depth > 4) return undefined;
    const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && REASONS[code]) return code;
    for (const inner of [cause, ...(Array.isArray(errors) ? errors : [])]) {
        const found = errorCode(inner, depth + 1);
        if (found) return found;
    }
    return typeof code === 'string' ? code : undefined;
}

/** The Chinese reason of a connection failure, or undefined when the error is not one. */
export function networkReason(error: unknown): string | undefined {
    const code = errorCode(error);
    if (code && REASONS[code]) return REASONS[code];
    const message = error instanceof Error ? error.message : '';
    if (/timeout|timed out/i.test(message)) return REASONS.ETIMEDOUT;
    if (/Connection terminated|Connection is closed|socket hang up/i.test(message)) return '连接已断开';
    return undefined;
}

/** The error's own text, for messages that quote the system's answer. */
export function messageOf(error: unknown): string {
    return error instanceof Error ? error.message : String(error);
}

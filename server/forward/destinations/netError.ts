/**
 * A connection failure explained in Chinese for the console and the flow's error column: what was tried (target) and
 * why it failed, from the Node error code the libraries pass on.
 */
export function describeNetError(err: unknown, target: string): string {
    const code = errorCode(err);
    const reason = REASONS[code] ?? (err instanceof Error ? err.message : String(err));
    return `无法连接 ${target}：${reason}`;
}

const REASONS: Record<string, string> = {
    ECONNREFUSED: '连接被拒绝（服务未启动或端口错误）',
    ENOTFOUND: '主机名无法解析',
    EAI_AGAIN: '主机名暂时无法解析',
    ETIMEDOUT: '连接超时',
    ECONNRESET: '连接被对方重置',
    EHOSTUNREACH: '主机不可达',
    ENETUNREACH: '网络不可达',
    EPIPE: '连接已断开',
    DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS 证书校验失败（自签名证书）',
    SELF_SIGNED_CERT_IN_CHAIN: 'TLS 证书校验失败（自签名证书）',
    UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS 证书校验失败',
    ERR_TLS_CERT_ALTNAME_INVALID: 'TLS 证书与主机名不符',
    CERT_HAS_EXPIRED: 'TLS 证书已过期',
};

/** The first Node error code found on the error or along its causes. */
function errorCode(err: unknown): string {
    for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
        const code = (e as { code?: unknown }).code;
        if (typeof code === 'string' && code in REASONS) return code;
        e = (e as { cause?: unknown }).cause;
    }
    return '';
}

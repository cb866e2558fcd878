export const PRODUCT_NAME = '物联网设备接入管理平台';

export function escapeHtml(value: string): string {
    return value.replace(
        /[&<>"']/g,
        (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string,
    );
}

/** No scripts, no external assets: styles inline, so the page also works with no network at all. */
export const LOGIN_PAGE_CSP =
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

const STYLE = `
*{box-sizing:border-box}
html,body{margin:0;height:100%}
body{font-family:-apple-system,BlinkMacSystemFont,"PingFang SC","Microsoft YaHei","Noto Sans CJK SC","Source Han Sans SC",sans-serif;
background:linear-gradient(135deg,#0b3d91 0%,#1565c0 45%,#26a69a 100%);color:#1f2937;display:flex;align-items:center;justify-content:center;padding:24px}
.card{width:100%;max-width:400px;background:#fff;border-radius:12px;box-shadow:0 20px 50px rgba(0,0,0,.25);padding:40px 36px 32px}
.brand{display:flex;align-items:center;gap:12px;margin-bottom:8px}
.logo{width:40px;height:40px;border-radius:10px;background:#1565c0;display:flex;align-items:center;justify-content:center}
.logo span{display:block;width:18px;height:18px;border:3px solid #fff;border-radius:50%;box-shadow:0 0 0 4px rgba(255,255,255,.35)}
h1{font-size:20px;margin:0;font-weight:600;letter-spacing:.5px}
.sub{margin:0 0 28px;color:#6b7280;font-size:14px}
label{display:block;font-size:14px;margin:0 0 6px;color:#374151}
input{width:100%;height:42px;border:1px solid #d1d5db;border-radius:6px;padding:0 12px;font-size:15px;margin-bottom:18px;outline:none;transition:border-color .15s,box-shadow .15s}
input:focus{border-color:#1565c0;box-shadow:0 0 0 3px rgba(21,101,192,.18)}
button{width:100%;height:44px;border:0;border-radius:6px;background:#1565c0;color:#fff;font-size:16px;cursor:pointer;letter-spacing:4px}
button:hover{background:#0d47a1}
.error{background:#fef2f2;border:1px solid #fecaca;color:#b91c1c;border-radius:6px;padding:10px 12px;font-size:14px;margin-bottom:18px}
.foot{margin-top:22px;text-align:center;font-size:12px;color:#9ca3af}
`;

export interface LoginPageOptions {
    redirect: string;
    username?: string;
    error?: string;
}

export function renderLoginPage({ redirect, username = '', error }: LoginPageOptions): string {
    return `<!doctype html>
<html lang="zh-CN">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>登录 - ${PRODUCT_NAME}</title>
<style>${STYLE}</style>
</head>
<body>
<main class="card">
<div class="brand"><div class="logo"><span></span></div><h1>${PRODUCT_NAME}</h1></div>
<p class="sub">统一身份认证，请登录后继续</p>
${error ? `<div class="error" role="alert">${escapeHtml(error)}</div>` : ''}
<form method="post" action="/sso/login" autocomplete="on">
<input type="hidden" name="redirect" value="${escapeHtml(redirect)}">
<label for="username">用户名</label>
<input id="username" name="username" value="${escapeHtml(username)}" autocomplete="username" required${username ? '' : ' autofocus'}>
<label for="password">密码</label>
<input id="password" name="password" type="password" autocomplete="current-password" required${username ? ' autofocus' : ''}>
<button type="submit">登录</button>
</form>
<div class="foot">© ${PRODUCT_NAME}</div>
</main>
</body>
</html>`;
}

import { useEffect, useRef } from 'react';
import { Box, CircularProgress, Link, Typography } from '@mui/material';
import { useLogin } from 'react-admin';
import { useNavigate } from 'react-router-dom';
import { hasSession } from '../auth/authProvider';

/**
 * /login: the console has no login form. Signed in already, the visitor goes to the dashboard; otherwise
 * authProvider.login sends the browser to the sign-on page.
 */
export function Login() {
    const login = useLogin();
    const navigate = useNavigate();
    // Once, even when StrictMode runs effects twice in development.
    const started = useRef(false);
    useEffect(() => {
        if (started.current) return;
        started.current = true;
        void hasSession().then((signedIn) => {
            if (signedIn) navigate('/', { replace: true });
            else login({}).catch(() => undefined);
        });
        // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on arrival
    }, []);
    return (
        <Box sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', textAlign: 'center' }}>
            <Box>
                <CircularProgress size={32} />
                <Typography sx={{ mt: 2 }}>正在前往统一登录页…</Typography>
                <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
                    如果页面没有跳转，请<Link href="/sso/login?redirect=/">点击这里登录</Link>
                </Typography>
            </Box>
        </Box>
    );
}

export default Login;

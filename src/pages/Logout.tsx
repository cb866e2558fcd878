import { useEffect, useRef } from 'react';
import { Box, CircularProgress, Typography } from '@mui/material';
import { useLogout } from 'react-admin';

/** /logout: ends the session (authProvider.logout) and goes to the sign-on page it names. */
export function Logout() {
    const logout = useLogout();
    // Once, even when StrictMode runs effects twice in development.
    const started = useRef(false);
    useEffect(() => {
        if (started.current) return;
        started.current = true;
        logout();
        // eslint-disable-next-line react-hooks/exhaustive-deps -- once, on arrival
    }, []);
    return (
        <Box sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', textAlign: 'center' }}>
            <Box>
                <CircularProgress size={32} />
                <Typography sx={{ mt: 2 }}>正在退出登录…</Typography>
            </Box>
        </Box>
    );
}

export default Logout;

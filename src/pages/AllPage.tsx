import { Box, Button, Typography } from '@mui/material';
import { Link, useLocation } from 'react-router-dom';
import { Title } from 'react-admin';

/** The catch-all route (SPEC.md 'allPage'): any path the console does not know. */
export function AllPage() {
    const { pathname } = useLocation();
    return (
        <Box sx={{ textAlign: 'center', py: 10 }}>
            <Title title="页面不存在" />
            <Typography variant="h2" component="p" color="primary" sx={{ fontWeight: 700 }}>
                404
            </Typography>
            <Typography variant="h6" component="h1" gutterBottom>
                抱歉，您访问的页面不存在
            </Typography>
            <Typography variant="body2" color="text.secondary" sx={{ mb: 3, wordBreak: 'break-all' }}>
                {pathname}
            </Typography>
            <Button variant="contained" component={Link} to="/introduce">
                返回首页
            </Button>
        </Box>
    );
}

export default AllPage;

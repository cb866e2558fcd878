import { Box, Button, Card, CardContent, Typography } from '@mui/material';
import { Link } from 'react-router-dom';
import { Title } from 'react-admin';

/**
 * Routes SPEC.md names without showing their content (/platform, /usercenter, /safetybutler): the route exists
 * so links and bookmarks land somewhere, and the page says plainly that there is nothing here yet.
 */
export function PlaceholderPage({ title }: { title: string }) {
    return (
        <Card sx={{ mt: 2 }}>
            <Title title={title} />
            <CardContent>
                <Typography variant="h6" component="h1" gutterBottom>
                    {title}
                </Typography>
                <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
                    该页面的内容暂未开放，目前可用的是物联网接入平台。
                </Typography>
                <Box>
                    <Button variant="contained" component={Link} to="/introduce">
                        进入物联网接入平台
                    </Button>
                </Box>
            </CardContent>
        </Card>
    );
}

export default PlaceholderPage;

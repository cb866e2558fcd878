import { Box, Button, Dialog, DialogActions, DialogContent, DialogTitle, Typography } from '@mui/material';
import type { CallAction } from '../vocabulary';
import { copyText } from './copy';
import { useToast } from './shared';

/**
 * What a call answered that is shown this once (a reset password): a dialog that stays until closed, with the value
 * in a box of its own and a 复制 button. `reveal` on a call action asks for it.
 */
export function RevealDialog({
    reveal,
    answer,
    onClose,
}: {
    reveal: NonNullable<CallAction['reveal']>;
    answer: unknown;
    onClose: () => void;
}) {
    const toast = useToast();
    const value = reveal.value(answer);
    return (
        <Dialog open onClose={onClose} maxWidth="xs" fullWidth aria-labelledby="engine-reveal-title">
            <DialogTitle id="engine-reveal-title">{reveal.title}</DialogTitle>
            <DialogContent>
                {reveal.text ? <Typography sx={{ mb: 2 }}>{reveal.text(answer)}</Typography> : null}
                <Box
                    component="code"
                    aria-label={reveal.title}
                    sx={{
                        display: 'block',
                        p: 1.5,
                        bgcolor: 'action.hover',
                        borderRadius: 1,
                        fontSize: 18,
                        letterSpacing: 1,
                    }}
                >
                    {value}
                </Box>
            </DialogContent>
            <DialogActions>
                <Button
                    onClick={() =>
                        void copyText(value).then((done) =>
                            done ? toast('复制成功') : toast('复制失败，请手动选择复制', 'warning'),
                        )
                    }
                >
                    复制
                </Button>
                <Button variant="contained" onClick={onClose}>
                    关闭
                </Button>
            </DialogActions>
        </Dialog>
    );
}

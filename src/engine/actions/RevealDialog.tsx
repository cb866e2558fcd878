import { Alert, Box, Button, Typography } from '@mui/material';
import type { Row, Scope } from '../types';
import type { RevealSpec } from '../vocabulary';
import { copyText } from './copy';
import { EngineDialog } from './EngineDialog';
import { of, useToast } from './shared';

/** A value at a dotted path of an answer. */
function valueAt(answer: unknown, path: string): unknown {
    let v: unknown = answer;
    for (const key of path.split('.')) v = v && typeof v === 'object' ? (v as Row)[key] : undefined;
    return v;
}

/**
 * `reveal` on a call action: what the platform answers only once (a new AccessKey's secret, a reset password), each
 * value with a copy button, in a dialog that stays until the person closes it.
 */
export function RevealDialog(props: { spec: RevealSpec; answer: unknown; scope: Scope; onClose: () => void }) {
    const { spec, answer, scope, onClose } = props;
    const toast = useToast();
    const note = spec.note ? of(spec.note, scope) : undefined;
    return (
        <EngineDialog
            open
            onClose={() => undefined}
            title={of(spec.title, scope)}
            width={spec.width}
            actions={
                <Button variant="contained" onClick={onClose}>
                    {spec.closeLabel ?? '我已保存'}
                </Button>
            }
        >
            {note ? (
                <Alert severity="warning" sx={{ mb: 2 }}>
                    {note}
                </Alert>
            ) : null}
            {spec.fields.map((f) => {
                const value = String(valueAt(answer, f.path) ?? '');
                return (
                    <Box key={f.path} sx={{ mb: 1.5 }}>
                        <Typography variant="body2" color="text.secondary">
                            {f.label}
                        </Typography>
                        <Box sx={{ display: 'flex', alignItems: 'center', gap: 1 }}>
                            <Typography
                                component="code"
                                aria-label={f.label}
                                sx={{ fontFamily: 'monospace', wordBreak: 'break-all', userSelect: 'all' }}
                            >
                                {value}
                            </Typography>
                            {f.copy ? (
                                <Button
                                    size="small"
                                    aria-label={`复制${f.label}`}
                                    onClick={() =>
                                        void copyText(value).then((done) =>
                                            toast(done ? '复制成功' : '复制失败', done ? 'success' : 'error'),
                                        )
                                    }
                                >
                                    复制
                                </Button>
                            ) : null}
                        </Box>
                    </Box>
                );
            })}
        </EngineDialog>
    );
}

import { defaultTheme, type RaThemeOptions } from 'react-admin';

const FONT = "'PingFang SC', 'Microsoft YaHei', 'Noto Sans CJK SC', 'Noto Sans SC', sans-serif";

const dense = { variant: 'outlined' as const, margin: 'dense' as const, size: 'small' as const, fullWidth: true };

/** react-admin's default theme, made calmer: outlined inputs, a blue primary, CJK fonts first. */
export const theme: RaThemeOptions = {
    ...defaultTheme,
    palette: {
        primary: { main: '#1f6fd1' },
        secondary: { main: '#13a8a8' },
        background: { default: '#f3f5f8' },
    },
    shape: { borderRadius: 6 },
    typography: {
        fontFamily: FONT,
        fontSize: 14,
        h6: { fontWeight: 500 },
        // MUI upper-cases button text: 添加Broker would read 添加BROKER. Labels show as written.
        button: { textTransform: 'none' },
    },
    sidebar: { width: 220, closedWidth: 56 },
    components: {
        ...defaultTheme.components,
        MuiTextField: { defaultProps: dense },
        MuiFormControl: { defaultProps: dense },
        MuiAppBar: { styleOverrides: { root: { boxShadow: 'none' } } },
        MuiPaper: { styleOverrides: { elevation1: { boxShadow: '0 1px 3px rgba(15, 35, 70, 0.08)' } } },
        MuiTableCell: {
            styleOverrides: {
                ...(defaultTheme.components?.MuiTableCell?.styleOverrides ?? {}),
                head: { fontWeight: 600, backgroundColor: '#fafbfc', whiteSpace: 'nowrap' },
            },
        },
        RaToolbar: { styleOverrides: { root: { backgroundColor: 'transparent' } } },
    },
};

export default theme;

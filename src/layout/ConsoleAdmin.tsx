import type { ComponentProps } from 'react';
import { CssBaseline } from '@mui/material';
import {
    AccessDenied,
    AdminContext,
    AuthCallback,
    AuthenticationError,
    CoreAdminUI,
    Error as ErrorPage,
    localStorageStore,
    LoadingPage,
    Notification,
    type AdminProps,
} from 'react-admin';

const defaultStore = localStorageStore();

/**
 * react-admin's <Admin>, minus its defaults the console replaces: <Admin> reaches react-admin's own login form
 * (and with it react-hook-form and the text inputs) through AdminUI's default `loginPage`, even when a login page
 * is given, so the first screen would carry the form machinery. This is the same composition (AdminContext,
 * CoreAdminUI with react-admin's notification, error, loading and access pages) with the console's own pages, so
 * forms load with the first screen that has one.
 */
export function ConsoleAdmin({
    authProvider,
    dataProvider,
    i18nProvider,
    store = defaultStore,
    theme,
    children,
    ...ui
}: Omit<AdminProps, 'loginPage' | 'layout' | 'catchAll'> &
    Required<Pick<ComponentProps<typeof CoreAdminUI>, 'loginPage' | 'layout' | 'catchAll'>>) {
    return (
        <AdminContext
            authProvider={authProvider}
            dataProvider={dataProvider}
            i18nProvider={i18nProvider}
            store={store}
            theme={theme}
        >
            <CssBaseline enableColorScheme>
                <CoreAdminUI
                    accessDenied={AccessDenied}
                    authCallbackPage={AuthCallback}
                    authenticationError={AuthenticationError}
                    error={ErrorPage}
                    loading={LoadingPage}
                    {...ui}
                >
                    {children}
                </CoreAdminUI>
                <Notification />
            </CssBaseline>
        </AdminContext>
    );
}

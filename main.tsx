import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router-dom';
import { App } from './src/App';
import { preloadRoute } from './src/engine/preload';

// The entry joins the console (src/) and the resource registry (resources/): neither imports the other.
// react-admin would route in the URL hash; a browser router gives plain, bookmarkable paths (/product?page=2).
// The registry is its own chunk, fetched now, beside the first screen's script and the sign-in check.
const resources = import('./resources').then((m) => m.default);
// The page the URL opens (the dashboard, with its map) starts loading its code as soon as the registry is here.
void resources.then((list) => preloadRoute(list, window.location.pathname));

createRoot(document.getElementById('root')!).render(
    <StrictMode>
        <BrowserRouter>
            <App resources={resources} />
        </BrowserRouter>
    </StrictMode>,
);

/**
 * The only module that imports maplibre-gl, so the library (about 1 MB) lands in the chunk of the map components
 * that are loaded lazily. Without the worker URL, Vite-built pages fail with "Worker failed to load".
 */
import * as maplibregl from 'maplibre-gl';
import workerUrl from 'maplibre-gl/dist/maplibre-gl-worker.mjs?url';
import 'maplibre-gl/dist/maplibre-gl.css';

maplibregl.setWorkerUrl(workerUrl);
// One worker (maplibre's default outside Safari) makes the basemap outlines and the device clustering queue behind
// each other; two let them run side by side (the dashboard map with 100,000 devices was ready seconds earlier).
maplibregl.setWorkerCount(2);
// The workers (and their script, a chunk of its own) start loading with this module, not when the first map is
// created after the style config answered: the outlines are fetched and tiled in them. Only where workers exist
// (not under jsdom, whose pages draw no map).
if (typeof Worker !== 'undefined') maplibregl.prewarm();

export { maplibregl };

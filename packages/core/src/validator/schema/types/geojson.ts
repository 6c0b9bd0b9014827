/** Structural checks of GeoJSON (RFC 7946) and TopoJSON objects. */
type Json = Record<string, unknown>;

const GEOMETRY_DEPTH: Record<string, number> = {
  Point: 1,
  MultiPoint: 2,
  LineString: 2,
  MultiLineString: 3,
  Polygon: 3,
  MultiPolygon: 4,
};

function isPosition(value: unknown): boolean {
  return Array.isArray(value) && value.length >= 2 && value.every((n) => typeof n === 'number');
}

function isNested(value: unknown, depth: number): boolean {
  if (depth === 1) return isPosition(value);
  return Array.isArray(value) && value.every((item) => isNested(item, depth - 1));
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function isGeometry(value: unknown): boolean {
  if (!isObject(value) || typeof value.type !== 'string') return false;
  if (value.type === 'GeometryCollection') {
    return Array.isArray(value.geometries) && value.geometries.every(isGeometry);
  }
  const depth = GEOMETRY_DEPTH[value.type];
  return depth !== undefined && isNested(value.coordinates, depth);
}

function isFeature(value: unknown): boolean {
  if (!isObject(value) || value.type !== 'Feature') return false;
  const geometryOk = value.geometry === null || isGeometry(value.geometry);
  const propertiesOk = value.properties === null || isObject(value.properties);
  return geometryOk && propertiesOk && 'properties' in value;
}

export function isGeojson(value: Json): boolean {
  if (value.type === 'Feature') return isFeature(value);
  if (value.type === 'FeatureCollection') {
    return Array.isArray(value.features) && value.features.every(isFeature);
  }
  return isGeometry(value);
}

const TOPO_TYPES = new Set([...Object.keys(GEOMETRY_DEPTH), 'GeometryCollection', 'Topology']);

export function isTopojson(value: Json): boolean {
  if (typeof value.type !== 'string' || !TOPO_TYPES.has(value.type)) return false;
  if (value.type === 'Topology') return isObject(value.objects) && Array.isArray(value.arcs);
  if (value.type === 'GeometryCollection') return Array.isArray(value.geometries);
  return 'arcs' in value || 'coordinates' in value;
}

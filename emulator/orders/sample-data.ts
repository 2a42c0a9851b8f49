/** Fictitious but plausible data of Asunción for the sandbox's order simulator. */

export const FIRST_NAMES = [
  'María', 'José', 'Ana', 'Juan', 'Lucía', 'Carlos', 'Sofía', 'Diego', 'Liz', 'Rodrigo', 'Fátima', 'Hugo', 'Noelia', 'Derlis', 'Gabriela',
];
export const LAST_NAMES = [
  'González', 'Benítez', 'Martínez', 'López', 'Giménez', 'Duarte', 'Villalba', 'Ortiz', 'Acosta', 'Ramírez', 'Franco', 'Cáceres', 'Báez',
];
/** Mobile prefixes of Paraguay (09xx), written in E.164 as +5959xx. */
export const MOBILE_PREFIXES = ['981', '982', '983', '984', '985', '971', '972', '973', '975', '976', '991', '992', '961'];

/** Barrios of Asunción with an approximate centre (latitude, longitude). */
export const NEIGHBORHOODS: { name: string; lat: number; lng: number; streets: string[] }[] = [
  { name: 'Villa Morra', lat: -25.2946, lng: -57.5786, streets: ['Avda. Mariscal López', 'Senador Long', 'Malutín', 'Charles de Gaulle'] },
  { name: 'Recoleta', lat: -25.2945, lng: -57.596, streets: ['Avda. Mariscal López', 'Cruz del Chaco', 'Tte. Vera'] },
  { name: 'Las Mercedes', lat: -25.2905, lng: -57.614, streets: ['Avda. España', 'Brasil', 'Estados Unidos'] },
  { name: 'Sajonia', lat: -25.288, lng: -57.653, streets: ['Avda. Carlos Antonio López', 'Dr. Francia', 'Rca. Francesa'] },
  { name: 'Carmelitas', lat: -25.275, lng: -57.576, streets: ['Avda. Santísimo Sacramento', 'Denis Roa', 'Ruta Transchaco'] },
  { name: 'Mburucuyá', lat: -25.268, lng: -57.574, streets: ['Avda. Santa Teresa', 'Tte. Zotti', 'Mayor Bullo'] },
  { name: 'San Vicente', lat: -25.312, lng: -57.604, streets: ['Avda. Fernando de la Mora', 'Azara', 'Dr. Eusebio Ayala'] },
  { name: 'Trinidad', lat: -25.245, lng: -57.595, streets: ['Avda. Artigas', 'Cacique Lambaré', 'Primer Presidente'] },
  { name: 'Herrera', lat: -25.299, lng: -57.565, streets: ['Avda. Perú', 'Tte. Fariña', 'Lillo'] },
  { name: 'Ycuá Satí', lat: -25.286, lng: -57.565, streets: ['Avda. Aviadores del Chaco', 'Dr. Morra', 'Capitán Cusmanich'] },
  { name: 'Manorá', lat: -25.288, lng: -57.579, streets: ['Avda. Brasilia', 'Campos Cervera', 'Juan XXIII'] },
];

export const REFERENCES = [
  'Portón negro, frente a la despensa',
  'Casa de dos pisos con rejas blancas',
  'Al lado de la farmacia de la esquina',
  'Edificio, piso 4, departamento B (timbre 4B)',
  'Muralla de piedra, casi esquina',
  'Frente a la plaza, portón verde',
];

export const BUSINESS_NAMES = [
  'Comercial San Blas S.A.', 'Ferretería Don Pedro S.R.L.', 'Consultora Guaraní E.A.S.', 'Distribuidora Lambaré S.A.',
  'Estudio Jurídico Benítez & Asociados', 'Agroganadera Chaco Sur S.A.',
];

export const ITEM_NOTES = ['Sin cebolla', 'Bien cocido', 'Cortar en 8 porciones', 'Sin hielo', 'Aderezos aparte', 'Poca sal'];
export const ORDER_NOTES = [
  'Tocar el timbre, por favor',
  'Llamar al llegar',
  'Dejar en portería',
  'Traer cambio si es posible',
  'Cubiertos descartables, por favor',
];

/** Delivery fees offered by the emulator's stores, in whole guaraníes. */
export const DELIVERY_FEES_PYG = [5000, 7000, 8000, 10000, 12000, 15000];

export const PANEL_PROMO = { name: 'Promo de la casa (panel)', price: '25000', category_name: 'Promociones' };

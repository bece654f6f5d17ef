// speedscope_load.mjs - loads a file through speedscope's own importer (the
// code speedscope runs when a file is opened) and prints what it understood:
//
//   group NAME
//   profile NAME unit UNIT total WEIGHT
//   frame NAME self WEIGHT total WEIGHT     (per function, by name)
//   stack ROOT;...;LEAF WEIGHT              (self weight per stack, sorted)
//
// Usage: node speedscope_load.mjs SPEEDSCOPE_RELEASE_DIR FILE
//
// The npm package ships speedscope as one browser bundle, without a module
// to import: the bundle is run in a node vm context with just enough of a
// browser around it, stopped before it renders its user interface, and its
// import module (the one exporting importProfileGroupFromText) is handed out.
import fs from 'node:fs'
import vm from 'node:vm'

const [dir, file] = process.argv.slice(2)
const bundle = fs.readdirSync(dir).find(f => /^speedscope-.*\.js$/.test(f))
let src = fs.readFileSync(`${dir}/${bundle}`, 'utf8')
const escape = s => s.replace(/\$/g, '\\$')
const mod = /var ([\w$]+)=\{\};[\w$]+\(\1,\{importFromFileSystemDirectoryEntry:/.exec(src)
const init = mod && new RegExp(`\\(\\)=>\\(([\\w$]+)\\(\\),${escape(mod[1])}\\)`).exec(src)
const ui = src.lastIndexOf('console.log(`speedscope v')
if (!mod || !init || ui < 0) {
  console.error(`${bundle}: speedscope's import module not found (a new bundle layout?)`)
  process.exit(2)
}
src = src.slice(0, ui) + `globalThis.zondImporter=(${init[1]}(),${mod[1]});return;` + src.slice(ui)

// Anything the page's code touches while it sets itself up: a callable
// object whose every property is another such object.
function anything() {
  return new Proxy(function () {}, {
    get: (t, k) => (k === Symbol.toPrimitive ? () => '' : k === 'then' ? undefined : anything()),
    apply: () => anything(),
    construct: () => anything(),
  })
}
const ctx = {
  console: { log() {}, warn() {}, error: console.error, info() {} },
  TextDecoder, TextEncoder, URL, atob, btoa,
  setTimeout, clearTimeout, setInterval, clearInterval,
  document: anything(), localStorage: anything(),
  navigator: { userAgent: 'node', platform: 'linux' },
  location: { href: 'file:///', hash: '', search: '' },
  matchMedia: () => ({ matches: false, addEventListener() {}, addListener() {} }),
  addEventListener() {}, requestAnimationFrame: () => 0, devicePixelRatio: 1,
}
ctx.window = ctx.self = ctx.global = ctx
vm.createContext(ctx)
vm.runInContext(src, ctx)

const text = fs.readFileSync(file, 'utf8')
const group = await ctx.zondImporter.importProfileGroupFromText(file.split('/').pop(), text)
if (!group) {
  console.error(`${file}: speedscope did not recognise the file`)
  process.exit(1)
}
const out = [`group ${group.name}`]
for (const profile of group.profiles) {
  out.push(`profile ${profile.getName()} unit ${profile.getWeightUnit()} total ${profile.getTotalWeight()}`)
  const frames = []
  profile.forEachFrame(f => frames.push(`frame ${f.name} self ${f.getSelfWeight()} total ${f.getTotalWeight()}`))
  out.push(...frames.sort())
  const stacks = []
  const walk = (node, path) => {
    const here = node.frame && node.frame.name !== '(speedscope root)' ? [...path, node.frame.name] : path
    if (here.length && node.getSelfWeight() > 0) stacks.push(`stack ${here.join(';')} ${node.getSelfWeight()}`)
    for (const child of node.children) walk(child, here)
  }
  walk(profile.getGroupedCalltreeRoot(), [])
  out.push(...stacks.sort())
}
console.log(out.join('\n'))

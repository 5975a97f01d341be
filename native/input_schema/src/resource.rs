//! The compiled-schema resource: a BEAM reference that owns one
//! `Arc<CompiledSchema>`.
//!
//! The type is opened by hand rather than through rustler's `Resource`, so
//! that a code reload keeps working (rustler opens types with
//! `ERL_NIF_RT_CREATE` alone and has no upgrade callback). The type's name
//! is the address at which this library's image is mapped:
//!
//! - a new instance of the module that loads the *same* image (a reload of
//!   `Native`, or `r/1` in IEx) opens the same name with
//!   `ERL_NIF_RT_TAKEOVER` and takes over every resource made before, which
//!   it can read because it is the same code;
//! - a *different* image (a release upgrade's new `priv/` copy) has another
//!   name and creates a type of its own: it never reads an old image's
//!   objects as its own. Those resources are then foreign to it, and their
//!   schemas are compiled again from the source a `%Compiled{}` carries
//!   (see `nif.rs`).
//!
//! Reading a resource takes no reference count: the compiled schema is
//! borrowed for as long as the term that holds it, so validating a compiled
//! schema writes no shared memory.

use std::ffi::CString;
use std::mem::size_of;
use std::ptr;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Arc, OnceLock};

use rustler::sys::{
    enif_alloc_resource, enif_get_resource, enif_make_resource, enif_open_resource_type,
    enif_release_resource, ErlNifEnv, ErlNifResourceFlags, ErlNifResourceType,
};
use rustler::{Env, Term};

use input_schema_core::schema::CompiledSchema;
use input_schema_core::standard::Validator;

/// What a resource holds: a compiled schema of either entry point, and
/// about how many bytes it holds (what freeing it costs, `deferred`).
pub trait Schema: Send + Sync + 'static {
    fn approximate_bytes(&self) -> usize;
}

impl Schema for CompiledSchema {
    fn approximate_bytes(&self) -> usize {
        // Counting costs a pass over the nodes; a destructor must not.
        self.bytes_or_estimate()
    }
}

impl Schema for Validator {
    fn approximate_bytes(&self) -> usize {
        Validator::approximate_bytes(self)
    }
}

/// The type this image makes and reads, once opened.
static TYPE: AtomicPtr<ErlNifResourceType> = AtomicPtr::new(ptr::null_mut());

/// The standard entry point's compiled schemas: a type of their own, opened
/// and taken over the same way.
static STANDARD_TYPE: AtomicPtr<ErlNifResourceType> = AtomicPtr::new(ptr::null_mut());

/// A static whose address names this image.
static IMAGE: u8 = 0;

fn type_name() -> &'static CString {
    static NAME: OnceLock<CString> = OnceLock::new();
    NAME.get_or_init(|| {
        let name = format!("compiled_schema@{:x}", ptr::addr_of!(IMAGE) as usize);
        CString::new(name).unwrap_or_default()
    })
}

fn standard_type_name() -> &'static CString {
    static NAME: OnceLock<CString> = OnceLock::new();
    NAME.get_or_init(|| {
        let name = format!("standard_schema@{:x}", ptr::addr_of!(IMAGE) as usize);
        CString::new(name).unwrap_or_default()
    })
}

/// Opens the type from the `load` or `upgrade` callback: taken over (with
/// every resource made before) when a type of this name exists, created
/// when none does. `false` if the runtime refused both.
pub fn open(env: Env<'_>) -> bool {
    open_type::<CompiledSchema>(env, type_name(), &TYPE)
        && open_type::<Validator>(env, standard_type_name(), &STANDARD_TYPE)
}

fn open_type<T: Schema>(env: Env<'_>, name: &CString, slot: &AtomicPtr<ErlNifResourceType>) -> bool {
    let open_with = |flags| {
        let mut tried = flags;
        // SAFETY: called from a load or upgrade callback with its
        // environment; the name is a NUL-terminated string that lives for
        // the program; `destroy` matches the destructor's signature.
        unsafe {
            enif_open_resource_type(
                env.as_c_arg(),
                ptr::null(),
                name.as_ptr(),
                Some(destroy::<T>),
                flags,
                &mut tried,
            )
        }
    };
    let mut opened = open_with(ErlNifResourceFlags::ERL_NIF_RT_TAKEOVER);
    if opened.is_null() {
        opened = open_with(ErlNifResourceFlags::ERL_NIF_RT_CREATE);
    }
    if opened.is_null() {
        return false;
    }
    slot.store(opened.cast_mut(), Ordering::Release);
    true
}

/// A new resource term holding a standard validator.
pub fn make_standard<'a>(env: Env<'a>, validator: Arc<Validator>) -> Option<Term<'a>> {
    make_in(&STANDARD_TYPE, env, validator)
}

/// The standard validator a resource term of this image holds.
pub fn get_standard<'a>(term: Term<'a>) -> Option<&'a Validator> {
    get_in(&STANDARD_TYPE, term)
}

/// A new resource term holding `schema`.
pub fn make<'a>(env: Env<'a>, schema: Arc<CompiledSchema>) -> Option<Term<'a>> {
    make_in(&TYPE, env, schema)
}

#[inline(always)]
fn make_in<'a, T>(slot: &AtomicPtr<ErlNifResourceType>, env: Env<'a>, schema: Arc<T>) -> Option<Term<'a>> {
    let kind = slot.load(Ordering::Acquire);
    if kind.is_null() {
        return None;
    }
    // SAFETY: `kind` is an open resource type of this image; the object is
    // sized for one pointer, written before the term is made, and released
    // once, so that the term alone keeps it alive.
    unsafe {
        let object = enif_alloc_resource(kind, size_of::<*const T>());
        if object.is_null() {
            return None;
        }
        object.cast::<*const T>().write(Arc::into_raw(schema));
        let term = enif_make_resource(env.as_c_arg(), object);
        enif_release_resource(object);
        Some(Term::new(env, term))
    }
}

/// The compiled schema a resource term of this image holds, borrowed for as
/// long as the term; `None` for any other term (another image's resource, a
/// reference from another node or from before a restart).
pub fn get<'a>(term: Term<'a>) -> Option<&'a CompiledSchema> {
    get_in(&TYPE, term)
}

#[inline(always)]
fn get_in<'a, T>(slot: &AtomicPtr<ErlNifResourceType>, term: Term<'a>) -> Option<&'a T> {
    let kind = slot.load(Ordering::Acquire);
    if kind.is_null() {
        return None;
    }
    let mut object = ptr::null();
    // SAFETY: `enif_get_resource` answers non-zero only for a resource of
    // exactly `kind`, whose object `make` wrote; the term, and so the
    // object and the schema it owns, lives at least as long as `'a`.
    unsafe {
        if enif_get_resource(term.get_env().as_c_arg(), term.as_c_arg(), kind, &mut object) == 0 {
            return None;
        }
        Some(&*object.cast::<*const T>().read())
    }
}

/// The destructor: gives the resource's reference to its schema back (a
/// large schema's last one, on a normal scheduler, to `deferred`).
unsafe extern "C" fn destroy<T: Schema>(_env: *mut ErlNifEnv, object: *mut std::ffi::c_void) {
    // SAFETY: the runtime calls this once per object of this type, each
    // written by `make_in` with a pointer from `Arc::into_raw`.
    let schema = unsafe { object.cast::<*const T>().read() };
    if !schema.is_null() {
        let schema = unsafe { Arc::from_raw(schema) };
        let bytes = schema.approximate_bytes();
        crate::deferred::release_schema(schema, bytes);
    }
}

//! A headless Vulkan device for interop tests and the example `27_vulkan_interop`: the physical
//! device whose UUID is the CUDA device's, one queue, `VK_KHR_external_memory_fd` and
//! `VK_KHR_external_semaphore_fd`, timeline semaphores; device-local buffers exported as opaque
//! fds, a host-visible staging buffer, exportable timeline semaphores, and the two submissions
//! the interop needs, ordered by them: a read-back of an exported buffer into the staging buffer
//! and a fill of it, each taking the buffer from CUDA's queue family (and giving it back); and an
//! exported `R32_UINT` image with mip levels, with its first release to CUDA, a read-back of
//! every level and a clear of every level, taken from CUDA and given back the same way. Every
//! failure is an `Err` that says which step failed and why, never a skip: a test that cannot
//! start Vulkan fails, naming it.
//!
//! The loader is `libvulkan.so.1` (ash's `loaded`): on the GPU machine `.gpu/run.sh` puts the
//! one `scripts/fetch-vulkan.sh` fetched on `LD_LIBRARY_PATH` and names NVIDIA's ICD through
//! `VK_ICD_FILENAMES` (a manifest for `libEGL_nvidia.so.0`, which runs without a display).
#![allow(dead_code, reason = "the test and the example each use part of it")]

use ash::vk;
use std::os::fd::{FromRawFd, OwnedFd};

/// What went wrong, in words.
pub(crate) type VkResult<T> = Result<T, String>;

fn step<T>(what: &str, r: Result<T, vk::Result>) -> VkResult<T> {
    r.map_err(|e| format!("Vulkan: {what} failed: {e:?}"))
}

/// A Vulkan device matched to a CUDA device, with what the interop needs.
pub(crate) struct Vulkan {
    // Kept alive: the instance and device are loaded through it.
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    memory_fd: ash::khr::external_memory_fd::Device,
    semaphore_fd: ash::khr::external_semaphore_fd::Device,
    queue: vk::Queue,
    family: u32,
    pool: vk::CommandPool,
    memory_types: vk::PhysicalDeviceMemoryProperties,
    /// The physical device's name.
    pub(crate) name: String,
    buffers: Vec<(vk::Buffer, vk::DeviceMemory)>,
    images: Vec<(vk::Image, vk::DeviceMemory)>,
    semaphores: Vec<vk::Semaphore>,
    command_buffers: Vec<vk::CommandBuffer>,
}

/// A buffer: its handle, its memory and the memory's size (what an import names).
#[derive(Clone, Copy)]
pub(crate) struct Buffer {
    /// The buffer.
    pub(crate) handle: vk::Buffer,
    /// Its memory (a dedicated allocation).
    pub(crate) memory: vk::DeviceMemory,
    /// The allocation's size in bytes.
    pub(crate) size: u64,
}

/// A 2D `R32_UINT` image with mip levels, optimal tiling, in a dedicated allocation: its
/// handle, memory, the memory's size (what an import names), extent and level count.
#[derive(Clone, Copy)]
pub(crate) struct Image {
    /// The image.
    pub(crate) handle: vk::Image,
    /// Its memory (a dedicated allocation).
    pub(crate) memory: vk::DeviceMemory,
    /// The allocation's size in bytes.
    pub(crate) size: u64,
    /// Level 0's width and height.
    pub(crate) extent: [u32; 2],
    /// The number of mip levels.
    pub(crate) levels: u32,
}

impl Image {
    /// Level `level`'s width and height (halved per level, at least 1).
    pub(crate) fn level_extent(&self, level: u32) -> [u32; 2] {
        self.extent.map(|e| (e >> level).max(1))
    }

    /// The byte offset of each level in a buffer that packs the levels one after another
    /// (4 bytes a texel), and the buffer's total size.
    pub(crate) fn packed_levels(&self) -> (Vec<u64>, u64) {
        let mut offsets = Vec::new();
        let mut total = 0;
        for level in 0..self.levels {
            let [w, h] = self.level_extent(level);
            offsets.push(total);
            total += u64::from(w) * u64::from(h) * 4;
        }
        (offsets, total)
    }
}

impl Vulkan {
    /// Vulkan 1.2 on the physical device whose `deviceUUID` is `uuid` (the CUDA device's,
    /// `cuDeviceGetUuid`).
    #[allow(
        clippy::too_many_lines,
        reason = "one setup read top to bottom: loader, instance, the matching device, its queue"
    )]
    pub(crate) fn for_uuid(uuid: [u8; 16]) -> VkResult<Self> {
        // SAFETY: loads libvulkan.so.1 and its entry points; nothing else runs at load.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| {
            format!(
                "Vulkan: no loader (libvulkan.so.1: {e}); on the GPU machine run through \
                 .gpu/run.sh, which sets LD_LIBRARY_PATH and VK_ICD_FILENAMES \
                 (scripts/fetch-vulkan.sh, scripts/gpu-bundle.sh)"
            )
        })?;
        let app = vk::ApplicationInfo::default()
            .application_name(c"custack-interop")
            .api_version(vk::make_api_version(0, 1, 2, 0));
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: a valid create info whose pointers outlive the call.
        let instance = step(
            "vkCreateInstance (is an ICD named by VK_ICD_FILENAMES?)",
            unsafe { entry.create_instance(&info, None) },
        )?;
        // SAFETY: a live instance.
        let physical = step("vkEnumeratePhysicalDevices", unsafe {
            instance.enumerate_physical_devices()
        })?;
        let mut found = None;
        let mut seen = Vec::new();
        for pd in physical {
            let mut id = vk::PhysicalDeviceIDProperties::default();
            let mut props = vk::PhysicalDeviceProperties2::default().push_next(&mut id);
            // SAFETY: a physical device of this instance; a valid output chain.
            unsafe { instance.get_physical_device_properties2(pd, &mut props) };
            let name = props
                .properties
                .device_name_as_c_str()
                .map_or_else(|_| "?".to_owned(), |n| n.to_string_lossy().into_owned());
            seen.push(name.clone());
            if id.device_uuid == uuid {
                found = Some((pd, name));
            }
        }
        let Some((pd, name)) = found else {
            // SAFETY: nothing of the instance is in use.
            unsafe { instance.destroy_instance(None) };
            return Err(format!(
                "Vulkan: no physical device has the CUDA device's UUID {uuid:02x?} (Vulkan sees {seen:?})"
            ));
        };
        // SAFETY: a physical device of this instance.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        let family = families
            .iter()
            .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
            .ok_or_else(|| format!("Vulkan: {name} has no compute queue"))?;
        let family = u32::try_from(family).map_err(|e| e.to_string())?;
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&priorities)];
        let extensions = [
            ash::khr::external_memory_fd::NAME.as_ptr(),
            ash::khr::external_semaphore_fd::NAME.as_ptr(),
        ];
        // SAFETY: a physical device of this instance.
        let present = step("vkEnumerateDeviceExtensionProperties", unsafe {
            instance.enumerate_device_extension_properties(pd)
        })?;
        let missing: Vec<String> = [
            ash::khr::external_memory_fd::NAME,
            ash::khr::external_semaphore_fd::NAME,
        ]
        .iter()
        .filter(|name| {
            !present
                .iter()
                .any(|p| p.extension_name_as_c_str().is_ok_and(|n| n == **name))
        })
        .map(|name| name.to_string_lossy().into_owned())
        .collect();
        if !missing.is_empty() {
            // SAFETY: nothing of the instance is in use.
            unsafe { instance.destroy_instance(None) };
            return Err(format!(
                "Vulkan: {name} lacks the device extensions {missing:?}"
            ));
        }
        let mut features12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_extension_names(&extensions)
            .push_next(&mut features12);
        // SAFETY: a valid create info whose pointers outlive the call.
        let device = step(
            "vkCreateDevice (VK_KHR_external_memory_fd, VK_KHR_external_semaphore_fd, timeline semaphores)",
            unsafe { instance.create_device(pd, &info, None) },
        )?;
        // SAFETY: a queue the device was created with.
        let queue = unsafe { device.get_device_queue(family, 0) };
        let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(family);
        // SAFETY: a live device, a valid create info.
        let pool = step("vkCreateCommandPool", unsafe {
            device.create_command_pool(&pool_info, None)
        })?;
        // SAFETY: a physical device of this instance.
        let memory_types = unsafe { instance.get_physical_device_memory_properties(pd) };
        let memory_fd = ash::khr::external_memory_fd::Device::new(&instance, &device);
        let semaphore_fd = ash::khr::external_semaphore_fd::Device::new(&instance, &device);
        Ok(Self {
            _entry: entry,
            instance,
            device,
            memory_fd,
            semaphore_fd,
            queue,
            family,
            pool,
            memory_types,
            name,
            buffers: Vec::new(),
            images: Vec::new(),
            semaphores: Vec::new(),
            command_buffers: Vec::new(),
        })
    }

    fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> VkResult<u32> {
        (0..self.memory_types.memory_type_count)
            .find(|&i| {
                bits & (1 << i) != 0
                    && self.memory_types.memory_types[i as usize]
                        .property_flags
                        .contains(flags)
            })
            .ok_or_else(|| {
                format!(
                    "Vulkan: no memory type with property flags {:#x} for bits {bits:#x}",
                    flags.as_raw()
                )
            })
    }

    fn buffer(
        &mut self,
        bytes: u64,
        flags: vk::MemoryPropertyFlags,
        export: bool,
    ) -> VkResult<Buffer> {
        let mut external = vk::ExternalMemoryBufferCreateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let mut info = vk::BufferCreateInfo::default()
            .size(bytes)
            .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST)
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        if export {
            info = info.push_next(&mut external);
        }
        // SAFETY: a live device, a valid create info.
        let buffer = step("vkCreateBuffer", unsafe {
            self.device.create_buffer(&info, None)
        })?;
        // SAFETY: a buffer of this device.
        let req = unsafe { self.device.get_buffer_memory_requirements(buffer) };
        let index = self.memory_type(req.memory_type_bits, flags)?;
        let mut export_info = vk::ExportMemoryAllocateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().buffer(buffer);
        let mut alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(index);
        if export {
            alloc = alloc.push_next(&mut export_info).push_next(&mut dedicated);
        }
        // SAFETY: a live device, a valid allocate info.
        let memory = step("vkAllocateMemory", unsafe {
            self.device.allocate_memory(&alloc, None)
        })?;
        self.buffers.push((buffer, memory));
        // SAFETY: unbound buffer, memory of a type it allows, large enough.
        step("vkBindBufferMemory", unsafe {
            self.device.bind_buffer_memory(buffer, memory, 0)
        })?;
        Ok(Buffer {
            handle: buffer,
            memory,
            size: req.size,
        })
    }

    /// A device-local buffer of `bytes` in a dedicated allocation exported as an opaque fd
    /// (`vkGetMemoryFdKHR`): the buffer, and the fd that CUDA imports.
    pub(crate) fn exported_buffer(&mut self, bytes: u64) -> VkResult<(Buffer, OwnedFd)> {
        let b = self.buffer(bytes, vk::MemoryPropertyFlags::DEVICE_LOCAL, true)?;
        let fd = self.export_fd(b.memory)?;
        Ok((b, fd))
    }

    /// Another opaque fd of exportable memory this device allocated (`vkGetMemoryFdKHR`: each
    /// call makes a new descriptor referring to the same memory), e.g. one per import.
    pub(crate) fn export_fd(&self, memory: vk::DeviceMemory) -> VkResult<OwnedFd> {
        let info = vk::MemoryGetFdInfoKHR::default()
            .memory(memory)
            .handle_type(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        // SAFETY: exportable memory of this device (the caller's: `exported_buffer`'s or
        // `exported_image`'s, which live as long as `self`).
        let fd = step("vkGetMemoryFdKHR", unsafe {
            self.memory_fd.get_memory_fd(&info)
        })?;
        // SAFETY: a new descriptor the call handed to this process, owned by nothing else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// A host-visible, coherent buffer of `bytes` (for reading back).
    pub(crate) fn staging_buffer(&mut self, bytes: u64) -> VkResult<Buffer> {
        self.buffer(
            bytes,
            vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT,
            false,
        )
    }

    /// A timeline semaphore at 0, exported as an opaque fd (`vkGetSemaphoreFdKHR`).
    pub(crate) fn exported_timeline(&mut self) -> VkResult<(vk::Semaphore, OwnedFd)> {
        let mut kind = vk::SemaphoreTypeCreateInfo::default()
            .semaphore_type(vk::SemaphoreType::TIMELINE)
            .initial_value(0);
        let mut export = vk::ExportSemaphoreCreateInfo::default()
            .handle_types(vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD);
        let info = vk::SemaphoreCreateInfo::default()
            .push_next(&mut kind)
            .push_next(&mut export);
        // SAFETY: a live device, a valid create info.
        let semaphore = step("vkCreateSemaphore (timeline, exportable)", unsafe {
            self.device.create_semaphore(&info, None)
        })?;
        self.semaphores.push(semaphore);
        let get = vk::SemaphoreGetFdInfoKHR::default()
            .semaphore(semaphore)
            .handle_type(vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD);
        // SAFETY: an exportable semaphore of this device.
        let fd = step("vkGetSemaphoreFdKHR", unsafe {
            self.semaphore_fd.get_semaphore_fd(&get)
        })?;
        // SAFETY: a new descriptor handed to this process, owned by nothing else.
        Ok((semaphore, unsafe { OwnedFd::from_raw_fd(fd) }))
    }

    /// Submits, after `semaphore` reaches `wait`, signalling it to `signal` when done: the
    /// acquire of `shared` from the external queue family (CUDA), its copy of `bytes` into
    /// `staging`, made visible to the host's read after the semaphore wait, and, if `release`,
    /// the release of `shared` back to the external family (for CUDA to use it again). Returns
    /// without waiting.
    #[allow(
        clippy::multiple_unsafe_ops_per_block,
        reason = "the command buffer's recording is one unsafe block under one contract"
    )]
    pub(crate) fn submit_read_back(
        &mut self,
        semaphore: vk::Semaphore,
        (wait, signal): (u64, u64),
        (shared, staging): (Buffer, Buffer),
        bytes: u64,
        release: bool,
    ) -> VkResult<()> {
        let family = self.family;
        let access = vk::AccessFlags::TRANSFER_READ;
        let acquire = ownership(shared, family, Transfer::Acquire, access);
        self.submit(semaphore, Some(wait), signal, |d, cb| {
            let to_host = vk::BufferMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .buffer(staging.handle)
                .offset(0)
                .size(vk::WHOLE_SIZE);
            let mut after = vec![to_host];
            let mut stages = vk::PipelineStageFlags::HOST;
            if release {
                after.push(ownership(shared, family, Transfer::Release, access));
                stages |= vk::PipelineStageFlags::BOTTOM_OF_PIPE;
            }
            // SAFETY: a command buffer in the recording state; buffers of this device.
            unsafe {
                barrier(d, cb, INTO_TRANSFER, &[acquire]);
                d.cmd_copy_buffer(
                    cb,
                    shared.handle,
                    staging.handle,
                    &[vk::BufferCopy {
                        src_offset: 0,
                        dst_offset: 0,
                        size: bytes,
                    }],
                );
                barrier(d, cb, (vk::PipelineStageFlags::TRANSFER, stages), &after);
            }
        })
    }

    /// Submits, after `semaphore` reaches `wait`, signalling it to `signal` when done: the
    /// acquire of `shared` from the external queue family (CUDA), its fill of `bytes` with the
    /// 32-bit `value`, and its release back to the external family. Returns without waiting.
    #[allow(
        clippy::multiple_unsafe_ops_per_block,
        reason = "the command buffer's recording is one unsafe block under one contract"
    )]
    pub(crate) fn submit_fill(
        &mut self,
        semaphore: vk::Semaphore,
        (wait, signal): (u64, u64),
        shared: Buffer,
        bytes: u64,
        value: u32,
    ) -> VkResult<()> {
        let family = self.family;
        let access = vk::AccessFlags::TRANSFER_WRITE;
        let acquire = ownership(shared, family, Transfer::Acquire, access);
        self.submit(semaphore, Some(wait), signal, |d, cb| {
            // SAFETY: a command buffer in the recording state; a buffer of this device.
            unsafe {
                barrier(d, cb, INTO_TRANSFER, &[acquire]);
                d.cmd_fill_buffer(cb, shared.handle, 0, bytes, value);
                barrier(
                    d,
                    cb,
                    (
                        vk::PipelineStageFlags::TRANSFER,
                        vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    ),
                    &[ownership(shared, family, Transfer::Release, access)],
                );
            }
        })
    }

    /// Records `record` into a new command buffer and submits it: after `semaphore` reaches
    /// `wait` (if any), signalling it to `signal` when done. Returns without waiting.
    fn submit(
        &mut self,
        semaphore: vk::Semaphore,
        wait: Option<u64>,
        signal: u64,
        record: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> VkResult<()> {
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: a live pool of this device.
        let cb = step("vkAllocateCommandBuffers", unsafe {
            self.device.allocate_command_buffers(&alloc)
        })?
        .into_iter()
        .next()
        .ok_or("Vulkan: no command buffer allocated")?;
        self.command_buffers.push(cb);
        let begin = vk::CommandBufferBeginInfo::default()
            .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        // SAFETY: a new command buffer in the initial state.
        step("vkBeginCommandBuffer", unsafe {
            self.device.begin_command_buffer(cb, &begin)
        })?;
        record(&self.device, cb);
        // SAFETY: a command buffer in the recording state.
        step("vkEndCommandBuffer", unsafe {
            self.device.end_command_buffer(cb)
        })?;
        let waits: Vec<vk::Semaphore> = wait.iter().map(|_| semaphore).collect();
        let wait_values: Vec<u64> = wait.into_iter().collect();
        let stages: Vec<vk::PipelineStageFlags> = waits
            .iter()
            .map(|_| vk::PipelineStageFlags::ALL_COMMANDS)
            .collect();
        let signals = [semaphore];
        let signal_values = [signal];
        let cbs = [cb];
        let mut timeline = vk::TimelineSemaphoreSubmitInfo::default()
            .wait_semaphore_values(&wait_values)
            .signal_semaphore_values(&signal_values);
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages)
            .command_buffers(&cbs)
            .signal_semaphores(&signals)
            .push_next(&mut timeline);
        // SAFETY: a recorded command buffer, a semaphore of this device, valid arrays.
        step("vkQueueSubmit", unsafe {
            self.device
                .queue_submit(self.queue, &[submit], vk::Fence::null())
        })
    }

    /// Waits on the host until `semaphore` reaches `value`, at most `timeout`.
    pub(crate) fn wait(
        &self,
        semaphore: vk::Semaphore,
        value: u64,
        timeout: std::time::Duration,
    ) -> VkResult<()> {
        let semaphores = [semaphore];
        let values = [value];
        let info = vk::SemaphoreWaitInfo::default()
            .semaphores(&semaphores)
            .values(&values);
        let ns = u64::try_from(timeout.as_nanos()).unwrap_or(u64::MAX);
        // SAFETY: a timeline semaphore of this device.
        match unsafe { self.device.wait_semaphores(&info, ns) } {
            Ok(()) => Ok(()),
            Err(vk::Result::TIMEOUT) => Err(format!(
                "Vulkan: the timeline semaphore did not reach {value} within {timeout:?}"
            )),
            Err(e) => Err(format!("Vulkan: vkWaitSemaphores failed: {e:?}")),
        }
    }

    /// The first `len` `u32`s of a host-visible buffer.
    pub(crate) fn read_u32(&self, b: Buffer, len: usize) -> VkResult<Vec<u32>> {
        // SAFETY: host-visible memory of this device, not mapped elsewhere, `b.size` bytes.
        let p = step("vkMapMemory", unsafe {
            self.device
                .map_memory(b.memory, 0, b.size, vk::MemoryMapFlags::empty())
        })?;
        let bytes = len * 4;
        if bytes as u64 > b.size {
            return Err("Vulkan: reading past the buffer".to_owned());
        }
        // SAFETY: the mapping holds `b.size >= bytes` bytes, coherent, and no work writes the
        // buffer now (the caller waited for it).
        let read = unsafe { std::slice::from_raw_parts(p.cast::<u32>(), len) }.to_vec();
        // SAFETY: mapped above.
        unsafe { self.device.unmap_memory(b.memory) };
        Ok(read)
    }
}

/// The format of [`Vulkan::exported_image`]: one 32-bit unsigned channel (CUDA's
/// `CU_AD_FORMAT_UNSIGNED_INT32`, one channel: custack's `u32` array element).
pub(crate) const IMAGE_FORMAT: vk::Format = vk::Format::R32_UINT;

/// The layout the shared image keeps while CUDA may use it: `GENERAL`, which copies and clears
/// accept, so acquires and releases change no layout.
const SHARED_LAYOUT: vk::ImageLayout = vk::ImageLayout::GENERAL;

impl Vulkan {
    /// A `width` × `height` [`IMAGE_FORMAT`] image of `levels` mip levels, optimal tiling,
    /// usable for transfers both ways and as a storage image (CUDA maps it surface-capable:
    /// `CUDA_ARRAY3D_SURFACE_LDST`), created with `VkExternalMemoryImageCreateInfo` (opaque fd)
    /// in a dedicated allocation (`VkMemoryDedicatedAllocateInfo`) exported as an opaque fd
    /// (`vkGetMemoryFdKHR`): the image, in the `UNDEFINED` layout, and the fd CUDA imports.
    pub(crate) fn exported_image(
        &mut self,
        [width, height]: [u32; 2],
        levels: u32,
    ) -> VkResult<(Image, OwnedFd)> {
        let mut external = vk::ExternalMemoryImageCreateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(IMAGE_FORMAT)
            .extent(vk::Extent3D {
                width,
                height,
                depth: 1,
            })
            .mip_levels(levels)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(
                vk::ImageUsageFlags::TRANSFER_SRC
                    | vk::ImageUsageFlags::TRANSFER_DST
                    | vk::ImageUsageFlags::STORAGE,
            )
            .sharing_mode(vk::SharingMode::EXCLUSIVE)
            .initial_layout(vk::ImageLayout::UNDEFINED)
            .push_next(&mut external);
        // SAFETY: a live device, a valid create info.
        let image = step(
            "vkCreateImage (R32_UINT, mip levels, external opaque fd)",
            unsafe { self.device.create_image(&info, None) },
        )?;
        // SAFETY: an image of this device.
        let req = unsafe { self.device.get_image_memory_requirements(image) };
        let index =
            match self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL) {
                Ok(i) => i,
                Err(e) => {
                    // SAFETY: an image of this device with no memory bound, in no submission.
                    unsafe { self.device.destroy_image(image, None) };
                    return Err(e);
                }
            };
        let mut export_info = vk::ExportMemoryAllocateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::OPAQUE_FD);
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().image(image);
        let alloc = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(index)
            .push_next(&mut export_info)
            .push_next(&mut dedicated);
        // SAFETY: a live device, a valid allocate info.
        let memory = match unsafe { self.device.allocate_memory(&alloc, None) } {
            Ok(m) => m,
            Err(e) => {
                // SAFETY: as above.
                unsafe { self.device.destroy_image(image, None) };
                return step(
                    "vkAllocateMemory (dedicated, exportable, for the image)",
                    Err(e),
                );
            }
        };
        self.images.push((image, memory));
        // SAFETY: an unbound image, its dedicated memory of a type it allows, large enough.
        step("vkBindImageMemory", unsafe {
            self.device.bind_image_memory(image, memory, 0)
        })?;
        let fd = self.export_fd(memory)?;
        let image = Image {
            handle: image,
            memory,
            size: req.size,
            extent: [width, height],
            levels,
        };
        Ok((image, fd))
    }

    /// Submits, signalling `semaphore` to `signal` when done: the image's move from `UNDEFINED`
    /// to the layout it keeps while shared (`GENERAL`), released to the external queue family
    /// (CUDA), before CUDA first touches it. Returns without waiting.
    pub(crate) fn submit_image_release(
        &mut self,
        semaphore: vk::Semaphore,
        signal: u64,
        image: Image,
    ) -> VkResult<()> {
        let release = image_barrier(image, (vk::ImageLayout::UNDEFINED, SHARED_LAYOUT))
            .src_queue_family_index(self.family)
            .dst_queue_family_index(vk::QUEUE_FAMILY_EXTERNAL);
        self.submit(semaphore, None, signal, |d, cb| {
            // SAFETY: a command buffer in the recording state; an image of this device.
            unsafe {
                image_barriers(
                    d,
                    cb,
                    (
                        vk::PipelineStageFlags::TOP_OF_PIPE,
                        vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    ),
                    &[],
                    &[release],
                );
            }
        })
    }

    /// Submits, after `semaphore` reaches `wait`, signalling it to `signal` when done: the
    /// acquire of `image` from the external queue family (CUDA), the copy of every level into
    /// `staging`, packed one after another ([`Image::packed_levels`]), made visible to the
    /// host's read, and the release of the image back to CUDA. Returns without waiting.
    #[allow(
        clippy::multiple_unsafe_ops_per_block,
        reason = "the command buffer's recording is one unsafe block under one contract"
    )]
    pub(crate) fn submit_image_read_back(
        &mut self,
        semaphore: vk::Semaphore,
        (wait, signal): (u64, u64),
        image: Image,
        staging: Buffer,
    ) -> VkResult<()> {
        let (offsets, total) = image.packed_levels();
        if total > staging.size {
            return Err("Vulkan: the staging buffer is smaller than the image's levels".to_owned());
        }
        let regions: Vec<vk::BufferImageCopy> = (0..image.levels)
            .zip(&offsets)
            .map(|(level, &offset)| {
                let [width, height] = image.level_extent(level);
                vk::BufferImageCopy::default()
                    .buffer_offset(offset)
                    .image_subresource(
                        vk::ImageSubresourceLayers::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .mip_level(level)
                            .base_array_layer(0)
                            .layer_count(1),
                    )
                    .image_extent(vk::Extent3D {
                        width,
                        height,
                        depth: 1,
                    })
            })
            .collect();
        let family = self.family;
        let access = vk::AccessFlags::TRANSFER_READ;
        let (acquire, release) = image_ownership(image, family, access);
        self.submit(semaphore, Some(wait), signal, |d, cb| {
            let to_host = vk::BufferMemoryBarrier::default()
                .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .dst_access_mask(vk::AccessFlags::HOST_READ)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .buffer(staging.handle)
                .offset(0)
                .size(vk::WHOLE_SIZE);
            // SAFETY: a command buffer in the recording state; an image and a buffer of this
            // device; the regions lie inside both.
            unsafe {
                image_barriers(d, cb, INTO_TRANSFER, &[], &[acquire]);
                d.cmd_copy_image_to_buffer(
                    cb,
                    image.handle,
                    SHARED_LAYOUT,
                    staging.handle,
                    &regions,
                );
                image_barriers(
                    d,
                    cb,
                    (
                        vk::PipelineStageFlags::TRANSFER,
                        vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    ),
                    &[to_host],
                    &[release],
                );
            }
        })
    }

    /// Submits, after `semaphore` reaches `wait`, signalling it to `signal` when done: the
    /// acquire of `image` from the external queue family (CUDA), the clear of level `l` to
    /// `values[l]` (`vkCmdClearColorImage`, every level), and the release back to CUDA.
    /// Returns without waiting.
    #[allow(
        clippy::multiple_unsafe_ops_per_block,
        reason = "the command buffer's recording is one unsafe block under one contract"
    )]
    pub(crate) fn submit_image_clear(
        &mut self,
        semaphore: vk::Semaphore,
        (wait, signal): (u64, u64),
        image: Image,
        values: &[u32],
    ) -> VkResult<()> {
        if values.len() != image.levels as usize {
            return Err("Vulkan: one clear value a level".to_owned());
        }
        let values = values.to_vec();
        let family = self.family;
        let access = vk::AccessFlags::TRANSFER_WRITE;
        let (acquire, release) = image_ownership(image, family, access);
        self.submit(semaphore, Some(wait), signal, |d, cb| {
            // SAFETY: a command buffer in the recording state; an image of this device, in
            // the layout named, with the levels cleared.
            unsafe {
                image_barriers(d, cb, INTO_TRANSFER, &[], &[acquire]);
                for (level, &value) in (0..image.levels).zip(&values) {
                    let color = vk::ClearColorValue {
                        uint32: [value, 0, 0, 0],
                    };
                    let range = vk::ImageSubresourceRange::default()
                        .aspect_mask(vk::ImageAspectFlags::COLOR)
                        .base_mip_level(level)
                        .level_count(1)
                        .base_array_layer(0)
                        .layer_count(1);
                    d.cmd_clear_color_image(cb, image.handle, SHARED_LAYOUT, &color, &[range]);
                }
                image_barriers(
                    d,
                    cb,
                    (
                        vk::PipelineStageFlags::TRANSFER,
                        vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    ),
                    &[],
                    &[release],
                );
            }
        })
    }
}

/// An image barrier over every level of `image`, from layout `old` to `new`, no access, queue
/// families ignored (the caller names what else it needs).
fn image_barrier(
    image: Image,
    (old, new): (vk::ImageLayout, vk::ImageLayout),
) -> vk::ImageMemoryBarrier<'static> {
    vk::ImageMemoryBarrier::default()
        .old_layout(old)
        .new_layout(new)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .image(image.handle)
        .subresource_range(
            vk::ImageSubresourceRange::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .base_mip_level(0)
                .level_count(image.levels)
                .base_array_layer(0)
                .layer_count(1),
        )
}

/// The acquire of `image` from the external queue family (CUDA) into `family` for `access`,
/// and its release back after `access`; the layout stays the shared one.
fn image_ownership(
    image: Image,
    family: u32,
    access: vk::AccessFlags,
) -> (
    vk::ImageMemoryBarrier<'static>,
    vk::ImageMemoryBarrier<'static>,
) {
    let same = (SHARED_LAYOUT, SHARED_LAYOUT);
    let acquire = image_barrier(image, same)
        .dst_access_mask(access)
        .src_queue_family_index(vk::QUEUE_FAMILY_EXTERNAL)
        .dst_queue_family_index(family);
    let release = image_barrier(image, same)
        .src_access_mask(access)
        .src_queue_family_index(family)
        .dst_queue_family_index(vk::QUEUE_FAMILY_EXTERNAL);
    (acquire, release)
}

/// Records a pipeline barrier of buffer and image memory barriers, from the stages `src` to
/// `dst`.
///
/// # Safety
///
/// `cb` is a command buffer of `d` in the recording state; the barriers name buffers and
/// images of `d`.
unsafe fn image_barriers(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    (src, dst): (vk::PipelineStageFlags, vk::PipelineStageFlags),
    buffers: &[vk::BufferMemoryBarrier<'_>],
    images: &[vk::ImageMemoryBarrier<'_>],
) {
    // SAFETY: the caller's.
    unsafe {
        d.cmd_pipeline_barrier(
            cb,
            src,
            dst,
            vk::DependencyFlags::empty(),
            &[],
            buffers,
            images,
        );
    }
}

/// The stages of an acquire before a transfer: from the top of the pipe to the transfer.
const INTO_TRANSFER: (vk::PipelineStageFlags, vk::PipelineStageFlags) = (
    vk::PipelineStageFlags::TOP_OF_PIPE,
    vk::PipelineStageFlags::TRANSFER,
);

/// Records a pipeline barrier of buffer memory barriers only, from the stages `src` to `dst`.
///
/// # Safety
///
/// `cb` is a command buffer of `d` in the recording state; `barriers` name buffers of `d`.
unsafe fn barrier(
    d: &ash::Device,
    cb: vk::CommandBuffer,
    (src, dst): (vk::PipelineStageFlags, vk::PipelineStageFlags),
    barriers: &[vk::BufferMemoryBarrier<'_>],
) {
    // SAFETY: the caller's.
    unsafe {
        d.cmd_pipeline_barrier(
            cb,
            src,
            dst,
            vk::DependencyFlags::empty(),
            &[],
            barriers,
            &[],
        );
    }
}

/// Which way a buffer moves between the external queue family (CUDA) and this device's.
#[derive(Clone, Copy)]
enum Transfer {
    /// From CUDA to this device, for the access named.
    Acquire,
    /// Back to CUDA, after the access named.
    Release,
}

/// A barrier that moves `b` between the external queue family and `family`, `way`, for (or
/// after) `access`.
fn ownership(
    b: Buffer,
    family: u32,
    way: Transfer,
    access: vk::AccessFlags,
) -> vk::BufferMemoryBarrier<'static> {
    let none = vk::AccessFlags::empty();
    let (from, to, src, dst) = match way {
        Transfer::Acquire => (vk::QUEUE_FAMILY_EXTERNAL, family, none, access),
        Transfer::Release => (family, vk::QUEUE_FAMILY_EXTERNAL, access, none),
    };
    vk::BufferMemoryBarrier::default()
        .src_access_mask(src)
        .dst_access_mask(dst)
        .src_queue_family_index(from)
        .dst_queue_family_index(to)
        .buffer(b.handle)
        .offset(0)
        .size(vk::WHOLE_SIZE)
}

impl Drop for Vulkan {
    #[allow(
        clippy::multiple_unsafe_ops_per_block,
        reason = "the teardown is one sequence under one contract: every object is this \
                  device's, destroyed once, after the device is idle"
    )]
    fn drop(&mut self) {
        // A test that panicked may have left a submission waiting for a semaphore value the
        // other API will never signal: `vkDeviceWaitIdle` has no timeout and would then wait for
        // ever, turning the test's failure into a hang whose message libtest never prints (a
        // four-GPU run of this file once ended by the command's time limit, with no message).
        // While unwinding, the objects are left to the process's exit instead.
        if std::thread::panicking() {
            return;
        }
        // SAFETY: every object below is of this device; the device is idle once the wait
        // returns (its result ignored: a lost device is torn down all the same).
        unsafe {
            let _ = self.device.device_wait_idle();
            if !self.command_buffers.is_empty() {
                self.device
                    .free_command_buffers(self.pool, &self.command_buffers);
            }
            self.device.destroy_command_pool(self.pool, None);
            for &s in &self.semaphores {
                self.device.destroy_semaphore(s, None);
            }
            for &(b, m) in &self.buffers {
                self.device.destroy_buffer(b, None);
                self.device.free_memory(m, None);
            }
            for &(i, m) in &self.images {
                self.device.destroy_image(i, None);
                self.device.free_memory(m, None);
            }
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
